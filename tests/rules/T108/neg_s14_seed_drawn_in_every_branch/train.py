# stagec fixture: neg_s14_seed_drawn_in_every_branch
# named: on the command line (`torchrun --nproc_per_node=4 train.py`)
# context: the seed is drawn from the clock or from `random` on every path (and only logged):
#          no run is meant to be reproduced, so benchmarking costs nothing.
# expect: none
# ----
import random
import sys
import time

import torch
import torch.distributed as dist
from torch import nn


def main():
    dist.init_process_group("nccl")
    if "--clock" in sys.argv:
        seed = int(time.time()) % 100000
    else:
        seed = random.randint(1, 10000)
    print("seed", seed)
    torch.manual_seed(seed + dist.get_rank())
    torch.backends.cudnn.benchmark = True
    model = nn.Conv2d(3, 3, 3).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(10):
        loss = model(torch.randn(2, 3, 16, 16, device="cuda")).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
