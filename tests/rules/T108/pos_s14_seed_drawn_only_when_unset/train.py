# stagec fixture: pos_s14_seed_drawn_only_when_unset (the entry)
# named: on the command line (`torchrun --nproc_per_node=4 train.py`)
# context: the seed comes from the run's options and is drawn at random only when they set
#          none; a run that sets it means to be reproduced, and benchmarking breaks that.
# expect:
#   T108 at 20:5 cudnn.benchmark = True in code that seeds torch for reproducibility
# ----
import os

import torch
import torch.distributed as dist
from torch import nn

from options import parse_options


def main():
    dist.init_process_group("nccl")
    opt = parse_options({"manual_seed": int(os.environ.get("SEED", "0")), "rank": dist.get_rank()})
    torch.backends.cudnn.benchmark = True
    model = nn.Conv2d(3, 3, 3).cuda()
    opt_ = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(10):
        loss = model(torch.randn(2, 3, 16, 16, device="cuda")).mean()
        opt_.zero_grad()
        loss.backward()
        opt_.step()


if __name__ == "__main__":
    main()
