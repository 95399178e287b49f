# stagec fixture: t100_neg_script_in_context
# runtime: torch.distributed through Determined's launcher, 8 processes
# expect: none
# ----
import torch
import torch.distributed as dist
from torch import nn


def main() -> None:
    dist.init_process_group("gloo")
    model = nn.Linear(4, 1)
    loss = model(torch.ones(2, 4)).sum()
    loss.backward()
    dist.barrier()


if __name__ == "__main__":
    main()
