# stagec fixture: neg_random_seed_own_function (look-alike of pos_timm_random_seed_star_import)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group)
# expect: none: `random_seed` is the script's own function, which the star import does not
#   provide, and it seeds nothing (it only logs the seed it is given)
# ----
import argparse

import torch
import torch.distributed as dist
from timm.loss import *
from timm.utils import *
from torch import nn

torch.backends.cudnn.benchmark = True


def random_seed(seed, rank):
    print(f"seed {seed} on rank {rank} is left to the launcher")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    random_seed(args.seed, dist.get_rank())
    model = nn.parallel.DistributedDataParallel(nn.Conv2d(3, 8, 3).cuda())
    print(model)


if __name__ == "__main__":
    main()
