# stagec fixture: s18 pos_builders_in_a_table (issue 22, class 9; review 22b's CLIP4Clip
#                 dataloaders/data_dataloaders.py: the loaders' builders sit in a module-level
#                 table, `LOADERS[name] = {"train": …, "test": …}`, and the script calls
#                 `LOADERS[args.datatype]["train"](args, tokenizer)`)
# named: on the command line (the script and its loaders module)
# runtime: multi-rank (init_process_group)
# expect: (in loaders.py's header) the training loader, and the test loader passed over on
#         rank 0 only.
# ----
import argparse

import torch
import torch.distributed as dist

from loaders import LOADERS


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--datatype", default="clips")
    parser.add_argument("--train_csv", default="train.csv")
    parser.add_argument("--val_csv", default="val.csv")
    parser.add_argument("--max_frames", type=int, default=12)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--batch_size_val", type=int, default=64)
    parser.add_argument("--reader_workers", type=int, default=2)
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
