# stagec fixture: s27 pos_many_rank0_options_judged_one_by_one (issue 22, class 2; seven options
#                 each end the run on rank 0 alone, and the epoch loop stops early on rank 0: eight
#                 condition parts, more than are tried both ways together, so each leave is judged
#                 on its own with the other options off)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T104 at 42:9 `return` under `rank == 0 and args.show_samples`
#   T104 at 45:9 `return` under `rank == 0 and args.export`
#   T104 at 48:9 `return` under `rank == 0 and args.test_only`
#   T104 at 51:9 `return` under `rank == 0 and args.profile`
#   T104 at 54:9 `return` under `rank == 0 and args.dry_run`
#   T104 at 57:9 `return` under `rank == 0 and args.summary`
#   T104 at 60:9 `return` under `rank == 0 and args.check_data`
#   T104 at 74:17 `break` of the early stop, under `rank == 0`
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

OPTIONS = ("--test-only", "--show-samples", "--export", "--profile", "--dry-run", "--summary", "--check-data")


def fit_one_epoch(model, loader, optimizer):
    for (x,) in loader:
        optimizer.zero_grad()
        model(x.cuda()).sum().backward()
        optimizer.step()


def main(args):
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    data = TensorDataset(torch.randn(1024, 8))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if rank == 0 and args.show_samples:
        print(next(iter(loader)))
        return
    if rank == 0 and args.export:
        torch.save(model.module.state_dict(), "export.pt")
        return
    if rank == 0 and args.test_only:
        print("testing")
        return
    if rank == 0 and args.profile:
        print("profile")
        return
    if rank == 0 and args.dry_run:
        print("dry run")
        return
    if rank == 0 and args.summary:
        print(model)
        return
    if rank == 0 and args.check_data:
        print(len(data))
        return
    best, bad = float("inf"), 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        fit_one_epoch(model, loader, optimizer)
        if rank == 0:
            with torch.no_grad():
                val_loss = sum(model.module(x.cuda()).sum().item() for (x,) in loader)
            if val_loss < best:
                best, bad = val_loss, 0
            else:
                bad += 1
            if args.early_stop and bad >= 5:
                print("Training halted early")
                break


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--early-stop", action="store_true")
    for flag in OPTIONS:
        parser.add_argument(flag, action="store_true")
    main(parser.parse_args())
