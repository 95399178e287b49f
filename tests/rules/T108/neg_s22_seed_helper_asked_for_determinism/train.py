# stagec fixture: neg_s22_seed_helper_asked_for_determinism (look-alike of
#   pos_s22_seed_helper_determinism_off_by_default: the call passes `deterministic=True`, so the
#   helper, called after the assignment, turns benchmarking off wherever the seed is set)
# named: on the command line (`python -m torch.distributed.launch --nproc_per_node=8 train.py`)
# expect: nothing
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
        set_random_seed(args.seed, deterministic=True)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Conv2d(3, 8, 3).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        loss = model(torch.randn(4, 3, 32, 32).cuda()).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
