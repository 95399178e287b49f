# stagec fixture: s27 neg_early_stop_broadcast_beside_side_runs (issue 22, class 2; the fix of
#                 the early stop: rank 0 decides, broadcasts the decision, and every rank leaves the
#                 loop together; beside it, a `--test-only` run that every rank takes alike)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
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
    if args.test_only:
        print(evaluate(model, loader))
        return
    early_stopper = EarlyStopper()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        fit_one_epoch(model, loader, optimizer)
        stop = torch.zeros(1, device="cuda")
        if rank == 0:
            val_loss = evaluate(model, loader)
            if args.wb:
                print(val_loss)
            if args.clearml:
                print(epoch)
            if args.early_stop and early_stopper.early_stop(val_loss):
                stop.fill_(1)
        dist.broadcast(stop, src=0)
        if stop.item() > 0:
            print("Training halted early")
            break


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    for flag in ("--test-only", "--show-samples", "--find-lr", "--wb", "--clearml", "--early-stop"):
        parser.add_argument(flag, action="store_true")
    main(parser.parse_args())
