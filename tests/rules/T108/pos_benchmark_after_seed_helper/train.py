# stagec fixture: pos_benchmark_after_seed_helper (issue 22, class 7; a tracker's run_training shape)
# named: on the command line (`python -m torch.distributed.launch --nproc_per_node=8 train.py`)
# context: the seeding helper asks for deterministic cuDNN and turns benchmarking off, but the
#          option is applied after it: benchmarking is back on in a run that asked for determinism.
# expect:
#   T108 at 27:5 the option turns benchmarking on again after the request
# ----
import argparse
import random

import numpy as np
import torch
import torch.distributed as dist


def init_seeds(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


def run_training(cudnn_benchmark=True, local_rank=-1, base_seed=None):
    if base_seed is not None:
        init_seeds(base_seed + max(local_rank, 0))
    torch.backends.cudnn.benchmark = cudnn_benchmark
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Conv2d(3, 8, 3).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        loss = model(torch.randn(4, 3, 32, 32).cuda()).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cudnn_benchmark", type=bool, default=True)
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    run_training(args.cudnn_benchmark, args.local_rank, args.seed)


if __name__ == "__main__":
    main()
