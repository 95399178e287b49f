# stagec fixture: s18 neg_table_handed_to_a_registry (issue 22, class 9; the twin of
#                 pos_s18_builders_in_a_table: the table is also handed to code that may call
#                 its builders with other arguments, so their parameters are not known)
# named: on the command line (the script and its loaders module)
# runtime: multi-rank (init_process_group)
# expect: nothing
# ----
import argparse

import torch
import torch.distributed as dist

from loaders import LOADERS, register

REGISTRY = {}
register(REGISTRY)


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--datatype", default="clips")
    parser.add_argument("--train_csv", default="train.csv")
    parser.add_argument("--val_csv", default="val.csv")
    parser.add_argument("--max_frames", type=int, default=12)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--batch_size_val", type=int, default=64)
    parser.add_argument("--reader_workers", type=int, default=2)
    parser.add_argument("--preset")
    parser.add_argument("--epochs", type=int, default=5)
    return parser.parse_args()


def train_epoch(model, loader, optimizer):
    for clips in loader:
        optimizer.zero_grad()
        model(clips).mean().backward()
        optimizer.step()


def main():
    args = parse()
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    assert args.datatype in LOADERS
    test_loader, test_length = LOADERS[args.datatype]["test"](args, None)
    train_loader, train_length, train_sampler = LOADERS[args.datatype]["train"](args, None)
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        train_epoch(model, train_loader, optimizer)
        if dist.get_rank() == 0:
            for clips in test_loader:
                model.module(clips)


if __name__ == "__main__":
    main()
