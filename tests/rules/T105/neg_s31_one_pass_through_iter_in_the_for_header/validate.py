# stagec fixture: s31 neg_one_pass_through_iter_in_the_for_header (issue 22, class 9; an evaluation
#   script passes over its loader once, through `enumerate(iter(loader))` in the `for`'s header:
#   that `iter(…)` runs once, before the loop's first pass; Infinity's validation-loss script)
# named: on the command line (`torchrun --nproc_per_node 8 validate.py`)
# expect: nothing
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataloader_workers", type=int, default=12)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(1024, 8))
    loader = DataLoader(data, batch_size=8, sampler=DistributedSampler(data, shuffle=False), num_workers=args.dataloader_workers)
    total = torch.zeros(())
    for i, (x,) in enumerate(iter(loader)):
        total += x.sum()
    dist.all_reduce(total)


if __name__ == "__main__":
    main()
