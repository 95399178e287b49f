# stagec fixture: s18 neg_dispatched_loader_remade_each_epoch (issue 22, class 9; a loader
#                 chosen through `get_dataset_fn(kind)(…)` and returned whole, made anew by the
#                 epoch loop)
# named: on the command line (the script, its data module and its training loop)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: nothing from T105 (T102: the new loaders' sampler is never told the epoch)
# ----
import argparse

import torch
import torch.distributed as dist

from data import get_data
from train import train_one_epoch


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--dataset-type", default="csv")
    p.add_argument("--epochs", type=int, default=10)
    return p.parse_args()


def main():
    args = parse()
    dist.init_process_group("nccl")
    model = torch.nn.Linear(4, 4)
    for epoch in range(args.epochs):
        data = get_data(args, epoch=epoch)
        train_one_epoch(model, data, epoch, args)


if __name__ == "__main__":
    main()
