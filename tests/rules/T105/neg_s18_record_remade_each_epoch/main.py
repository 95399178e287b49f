# stagec fixture: s18 neg_record_remade_each_epoch (issue 22, class 9; the twin of
#                 pos_s18_record_in_a_dict_from_a_dispatcher: `get_data` runs at every epoch, so
#                 each epoch has a new loader, which persistent_workers cannot keep)
# named: on the command line (the script, its data module and its training loop)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: nothing
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
