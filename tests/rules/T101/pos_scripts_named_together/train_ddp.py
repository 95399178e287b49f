# stagec fixture: h01_pos_scripts_named_together
# named: on the command line, with calibrate.py
# context: no experiment config in the folder; launched with torchrun: it initialises
#          torch.distributed and wraps the model in DistributedDataParallel.
# expect:
#   T101 at 27:61 RandomSampler without generator=: every rank seeds the global RNG with 0 and
#        draws the same permutation from the plain DataLoader.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, RandomSampler

from shared import toy


def main() -> None:
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    data = toy()
    model = DDP(nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(2):
        for x, y in DataLoader(data, batch_size=64, sampler=RandomSampler(data)):
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    if int(os.environ.get("RANK", "0")) == 0:
        torch.save(model.module.state_dict(), "toy.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
