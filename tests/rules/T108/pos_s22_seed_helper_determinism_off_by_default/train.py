# stagec fixture: pos_s22_seed_helper_determinism_off_by_default (issue 22, class 7; U2PL's shape: the
#   script turns benchmarking on, then seeds through a helper whose `deterministic` flag, off by
#   default and never passed, is the only path that turns it off again)
# named: on the command line (`python -m torch.distributed.launch --nproc_per_node=8 train.py`)
# expect:
#   T108 at 32:5 cudnn.benchmark = True in code that seeds torch for reproducibility …
# ----
import argparse
import random

import numpy as np
import torch
import torch.backends.cudnn as cudnn
import torch.distributed as dist


def set_random_seed(seed, deterministic=False):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    if deterministic:
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    cudnn.enabled = True
    cudnn.benchmark = True
    dist.init_process_group("nccl")
    if args.seed is not None:
        set_random_seed(args.seed)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Conv2d(3, 8, 3).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        loss = model(torch.randn(4, 3, 32, 32).cuda()).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
