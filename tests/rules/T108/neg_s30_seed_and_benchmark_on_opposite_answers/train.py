# stagec fixture: neg_s30_seed_and_benchmark_on_opposite_answers (issue 22, class 7's look-alike:
#   Palette's `set_seed`: the same question asked twice, seeding and determinism where the seed is
#   set, benchmarking only where it is not)
# named: on the command line (`torchrun --nproc_per_node=4 train.py --seed -1`)
# runtime: multi-rank (init_process_group, DDP)
# expect: nothing (benchmark is on only where the run did not ask for a seed)
# ----
import argparse
import random

import numpy as np
import torch
import torch.distributed as dist
from torch import nn


def set_seed(seed, gl_seed=0):
    if seed >= 0 and gl_seed >= 0:
        seed += gl_seed
        torch.manual_seed(seed)
        torch.cuda.manual_seed_all(seed)
        np.random.seed(seed)
        random.seed(seed)
    if seed >= 0 and gl_seed >= 0:
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
    else:
        torch.backends.cudnn.deterministic = False
        torch.backends.cudnn.benchmark = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=-1)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    set_seed(args.seed)
    model = nn.parallel.DistributedDataParallel(nn.Conv2d(3, 8, 3).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        loss = model(torch.randn(4, 3, 32, 32).cuda()).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
