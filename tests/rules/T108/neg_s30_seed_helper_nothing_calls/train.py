# stagec fixture: neg_s30_seed_helper_nothing_calls (issue 22, class 7's look-alike:
#   image-restoration-sde's train.py: the seeding helper's only call is commented out)
# named: on the command line (`torchrun --nproc_per_node=4 train.py`)
# runtime: multi-rank (init_process_group, DDP)
# expect: nothing (nothing seeds torch: the run does not ask to be reproduced)
# ----
import random

import numpy as np
import torch
import torch.distributed as dist
from torch import nn


def set_random_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def main():
    dist.init_process_group("nccl")
    seed = 10
    # set_random_seed(seed)
    torch.backends.cudnn.benchmark = True
    model = nn.parallel.DistributedDataParallel(nn.Conv2d(3, 8, 3).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        loss = model(torch.randn(4, 3, 32, 32).cuda()).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
