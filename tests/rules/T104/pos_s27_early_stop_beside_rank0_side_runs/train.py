# stagec fixture: s27 pos_early_stop_beside_rank0_side_runs (issue 22, class 2; doctr's shape:
#                 besides the early stop on rank 0, the script has rank-0-only returns for
#                 `--test-only` and `--show-samples` and a `--find-lr` run on which rank 0 trains
#                 alone; with all of them the ranks differ whatever leaves, so each leave is judged
#                 with the other options off)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T104 at 44:9 the DDP forward of `--find-lr`'s run on rank 0 alone
#   T104 at 63:9 `return` under `rank == 0 and args.test_only`
#   T104 at 66:9 `return` under `rank == 0 and args.show_samples`
#   T104 at 82:17 `break` of the early stop, under `rank == 0`
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class EarlyStopper:
    def __init__(self, patience=5):
        self.patience = patience
        self.best = float("inf")
        self.bad = 0

    def early_stop(self, loss):
        if loss < self.best:
            self.best, self.bad = loss, 0
        else:
            self.bad += 1
        return self.bad >= self.patience


def fit_one_epoch(model, loader, optimizer):
    for (x,) in loader:
        optimizer.zero_grad()
        model(x.cuda()).sum().backward()
        optimizer.step()


def record_lr(model, loader, optimizer, steps=100):
    for _, (x,) in zip(range(steps), loader):
        optimizer.zero_grad()
        model(x.cuda()).sum().backward()
        optimizer.step()


def evaluate(model, loader):
    with torch.no_grad():
        return sum(model.module(x.cuda()).sum().item() for (x,) in loader)


def main(args):
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    data = TensorDataset(torch.randn(1024, 8))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if rank == 0 and args.test_only:
        print(evaluate(model, loader))
        return
    if rank == 0 and args.show_samples:
        print(next(iter(loader)))
        return
    if rank == 0 and args.find_lr:
        record_lr(model, loader, optimizer)
        return
    early_stopper = EarlyStopper()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        fit_one_epoch(model, loader, optimizer)
        if rank == 0:
            val_loss = evaluate(model, loader)
            if args.wb:
                print(val_loss)
            if args.clearml:
                print(epoch)
            if args.early_stop and early_stopper.early_stop(val_loss):
                print("Training halted early")
                break


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    for flag in ("--test-only", "--show-samples", "--find-lr", "--wb", "--clearml", "--early-stop"):
        parser.add_argument(flag, action="store_true")
    main(parser.parse_args())
