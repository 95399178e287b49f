# stagec fixture: t22g neg_spawned_worker_args (issue 22: values through mp.spawn)
# named: on the command line (a plain `python main.py` that spawns its ranks)
# runtime: torch.multiprocessing.spawn starts one process per GPU; the values that
#          reach the workers' parameters are small or persistent
# expect: none
#   - main_worker(gpu, workers, args) gets 0 from the spawn tuple's first item
#     (not the args object: the rank comes first);
#   - eval_worker divides --workers' default 16 by 8 GPUs in each rank: 2;
#   - probe_worker's spawn tuple is not a literal (unresolvable: silent).
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset


def dataset():
    return TensorDataset(torch.randn(20000, 64))


def main_worker(gpu, workers, args):
    dist.init_process_group("nccl", world_size=args.ngpus, rank=gpu)
    loader = DataLoader(dataset(), batch_size=64, num_workers=workers)
    for epoch in range(args.epochs):
        for (x,) in loader:
            print(epoch, x.sum().item())


def eval_worker(gpu, args):
    dist.init_process_group("nccl", world_size=args.ngpus, rank=gpu)
    args.workers = int(args.workers / 8)
    loader = DataLoader(dataset(), batch_size=256, num_workers=args.workers)
    for epoch in range(args.epochs):
        for (x,) in loader:
            print(epoch, x.sum().item())


def probe_worker(gpu, args):
    dist.init_process_group("nccl", world_size=args.ngpus, rank=gpu)
    loader = DataLoader(dataset(), batch_size=256, num_workers=args.workers)
    for epoch in range(args.epochs):
        for (x,) in loader:
            print(epoch, x.sum().item())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--ngpus", type=int, default=8)
    args = parser.parse_args()
    mp.spawn(main_worker, (0, args), args.ngpus)
    mp.spawn(eval_worker, args=(args,), nprocs=args.ngpus)
    spawn_args = tuple([args])
    mp.spawn(probe_worker, spawn_args, args.ngpus)


if __name__ == "__main__":
    main()
