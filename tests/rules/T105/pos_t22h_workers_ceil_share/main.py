# stagec fixture: t22h pos_workers_ceil_share (issue 22, class 9; third blind review)
# named: on the command line (no config: the script spawns one process per GPU itself)
# runtime: with --spawn, one rank per GPU, each with ceil(16 / GPUs) loader workers;
#          without it, one process that keeps all 16
# expect:
#   T105 at 38:48 16 workers shared over the node's ranks with math.ceil: at least 16 per
#        node restart at every epoch
# ----
import argparse
import math

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=16)
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--spawn", action="store_true")


def fit(step_fn, loader, epochs):
    for epoch in range(epochs):
        for batch in loader:
            step_fn(epoch, batch)


def worker(local_rank, n_gpus, args):
    if args.spawn:
        dist.init_process_group("nccl", world_size=n_gpus, rank=local_rank)
        args.workers = int(math.ceil(args.workers / n_gpus))
    data = TensorDataset(torch.arange(100000))

    def step(epoch, batch):
        print(epoch, batch[0].sum().item())

    fit(step, DataLoader(data, batch_size=512, num_workers=args.workers), args.epochs)


def main():
    args = parser.parse_args()
    n_gpus = torch.cuda.device_count()
    if args.spawn:
        mp.spawn(worker, nprocs=n_gpus, args=(n_gpus, args))
    else:
        worker(0, 1, args)


if __name__ == "__main__":
    main()
