# stagec fixture: neg_loader_on_spawned_rank_zero (issue 22: one rank's loader, hifi-gan's shape)
# named: on the command line (a plain `python train.py` that spawns its ranks)
# runtime: mp.spawn(train, nprocs=n) on several GPUs, a direct train(0, …) on one
# expect: none: the validation loader is built under `if rank == 0:`, where `rank` is the index
#   mp.spawn passes first (the one-GPU path calls train(0, …) itself): one process's single worker
#   (one rank's loader is reported from 2 workers up); the training loader keeps its workers
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def train(rank, args):
    if args.gpus > 1:
        dist.init_process_group("nccl", world_size=args.gpus, rank=rank)
    data = TensorDataset(torch.randn(4096, 16))
    sampler = DistributedSampler(data) if args.gpus > 1 else None
    loader = DataLoader(data, batch_size=32, sampler=sampler, num_workers=4, persistent_workers=True)
    if rank == 0:
        held_out = DataLoader(TensorDataset(torch.randn(64, 16)), batch_size=1, num_workers=1)
    for epoch in range(args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        for (x,) in loader:
            x.sum()
        if rank == 0:
            for (x,) in held_out:
                x.mean()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, default=torch.cuda.device_count())
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    if args.gpus > 1:
        mp.spawn(train, nprocs=args.gpus, args=(args,))
    else:
        train(0, args)


if __name__ == "__main__":
    main()
