# stagec fixture: pos_s17_seed_helper_leaves_benchmark
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# context: neg_s17_seed_helper_chooses_benchmark, but the seeding helper only sets the
#          deterministic switch: the benchmarking turned on first stays on in a seeded run.
# expect:
#   T108 at 32:9 cudnn.benchmark = True in a program that seeds torch for reproducibility
# ----
import argparse
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.backends import cudnn


def set_random_seed(seed, deterministic=False):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    cudnn.deterministic = deterministic


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--deterministic", action="store_true")
    parser.add_argument("--local_rank", type=int, default=0)
    args = parser.parse_args()
    if torch.cuda.is_available():
        torch.backends.cudnn.benchmark = True
    dist.init_process_group(backend="nccl")
    if args.seed is not None:
        set_random_seed(args.seed + args.local_rank, deterministic=args.deterministic)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Conv1d(3, 8, 3).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(100):
        loss = model(torch.randn(4, 3, 1024).cuda()).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
