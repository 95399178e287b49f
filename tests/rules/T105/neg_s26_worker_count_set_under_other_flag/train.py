# stagec fixture: s26 neg_worker_count_set_under_other_flag (issue 22, class 9; the look-alike
#                 of pos_s26_worker_count_filled_in_from_cpu_count: the CPU share is stored under
#                 a flag of its own, not where the option is left out, and the option's default is
#                 0 otherwise; which count runs is not known)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import argparse
import multiprocessing

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, SequentialSampler, TensorDataset


def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(model.module(x).sum().item() for x, _ in loader)


def fit_one_epoch(model, loader, optimizer):
    model.train()
    for x, y in loader:
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()


def main(args):
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    if args.fast_io:
        args.workers = min(16, multiprocessing.cpu_count())
    val_set = TensorDataset(torch.randn(512, 8), torch.randn(512, 1))
    val_loader = DataLoader(
        val_set,
        batch_size=64,
        num_workers=args.workers,
        sampler=SequentialSampler(val_set),
    )
    train_set = TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
    sampler = DistributedSampler(train_set, rank=rank, shuffle=True, drop_last=True)
    train_loader = DataLoader(
        train_set,
        batch_size=64,
        num_workers=args.workers,
        sampler=sampler,
    )
    model = DDP(torch.nn.Linear(8, 1))
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        fit_one_epoch(model, train_loader, optimizer)
        if rank == 0:
            print(epoch, evaluate(model, val_loader))


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("-j", "--workers", type=int, default=0)
    parser.add_argument("--fast_io", action="store_true")
    parser.add_argument("--epochs", type=int, default=10)
    return parser


if __name__ == "__main__":
    main(get_parser().parse_args())
