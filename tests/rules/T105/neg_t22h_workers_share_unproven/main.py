# stagec fixture: t22h neg_workers_share_unproven (issue 22, class 9: look-alikes of the
# node's workers divided over its ranks)
# named: on the command line (no config: the script spawns one process per GPU itself)
# expect: none
#   - --workers is divided over the GPUs, rounded up, but main also stores to it (a debug
#     mode that turns the workers off): which count a rank reads is not known;
#   - --eval-workers is rounded up over the gradient-accumulation steps, not over the node's
#     GPUs: the node's total is not the flag's value;
#   - --probe-workers is shared over the GPUs, rounded up, but its loader keeps its workers
#     (persistent_workers=True);
#   - --log-workers is shared over the GPUs, but its loader is built on rank 0 only.
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset


def data():
    return TensorDataset(torch.randn(30000, 16))


def spin(loader, epochs):
    for epoch in range(epochs):
        for (x,) in loader:
            print(epoch, x.mean().item())


def rank_main(gpu, gpus, args):
    dist.init_process_group("nccl", world_size=gpus, rank=gpu)
    args.workers = int((args.workers + gpus - 1) / gpus)
    args.eval_workers = (args.eval_workers + args.accum - 1) // args.accum
    args.probe_workers = (args.probe_workers + gpus - 1) // gpus
    args.log_workers = (args.log_workers + gpus - 1) // gpus
    spin(DataLoader(data(), batch_size=64, num_workers=args.workers), args.epochs)
    spin(DataLoader(data(), batch_size=64, num_workers=args.eval_workers), args.epochs)
    probe = DataLoader(data(), batch_size=64, num_workers=args.probe_workers, persistent_workers=True)
    spin(probe, args.epochs)
    if dist.get_rank() == 0:
        spin(DataLoader(data(), batch_size=64, num_workers=args.log_workers), args.epochs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=32)
    parser.add_argument("--eval-workers", type=int, default=32)
    parser.add_argument("--probe-workers", type=int, default=32)
    parser.add_argument("--log-workers", type=int, default=32)
    parser.add_argument("--accum", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args()
    if args.debug:
        args.workers = 0
    gpus = torch.cuda.device_count()
    mp.spawn(rank_main, nprocs=gpus, args=(gpus, args))


if __name__ == "__main__":
    main()
