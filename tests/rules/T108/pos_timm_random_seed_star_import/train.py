# stagec fixture: pos_timm_random_seed_star_import (issue 22, class 7: fastvit's and poolformer's
#   timm trainers)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group)
# expect:
#   T108 at 17:1 module-level `cudnn.benchmark = True` in a script that seeds torch through timm's
#        `random_seed(args.seed, rank)`, a name the script has from `from timm.utils import *`
# ----
import argparse

import torch
import torch.distributed as dist
from timm.loss import *
from timm.utils import *
from torch import nn

torch.backends.cudnn.benchmark = True


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
