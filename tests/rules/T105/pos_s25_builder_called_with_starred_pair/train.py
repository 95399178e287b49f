# stagec fixture: s25 pos_builder_called_with_starred_pair (issue 22, class 9; review 33a's
#                 UNITER: the loader builder is called as `build_dataloader(*dataset, is_train,
#                 opts)`, where every dataset builder returns a `(dataset, collate_fn)` pair,
#                 so `opts.n_workers` is the parser's default of 4)
# named: on the command line (`horovodrun -np 8 python train.py`)
# expect:
#   T105 at 22:64 four workers per rank, started again at every epoch.
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def collate(batch):
    return torch.stack([b[0] for b in batch])


def build_dataloader(dataset, collate_fn, is_train, opts):
    sampler = DistributedSampler(dataset, shuffle=is_train)
    return DataLoader(dataset, sampler=sampler, batch_size=32, num_workers=opts.n_workers, collate_fn=collate_fn)


def build_dataset(n):
    return TensorDataset(torch.randn(n, 4)), collate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_workers", type=int, default=4)
    opts = parser.parse_args()
    dist.init_process_group("nccl")
    dataset = build_dataset(1024)
    loader = build_dataloader(*dataset, True, opts)
    for epoch in range(20):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            pass


if __name__ == "__main__":
    main()
