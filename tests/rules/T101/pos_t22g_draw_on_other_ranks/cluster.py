# Look-alikes of the one-rank draws that still run on many ranks:
#   - the `else` of `if rank == 0:` runs on every other rank, all seeded alike;
#   - `if rank == 0 or args.all_ranks:` may hold on every rank;
#   - a per-epoch permutation, never broadcast, drawn on every rank.
# expect:
#   T101 at 27:17 torch.randperm on ranks 1..N-1
#   T101 at 31:63 RandomSampler under a condition that is not one rank's
#   T101 at 36:17 torch.randperm of every rank
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, RandomSampler, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--all-ranks", action="store_true")
    args = parser.parse_args()
    dist.init_process_group("nccl")
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(4096, 16))
    if dist.get_rank() == 0:
        print("rank 0 evaluates")
    else:
        order = torch.randperm(len(data))
        for i in order[:256]:
            print(data[i][0].sum())
    if dist.get_rank() == 0 or args.all_ranks:
        train_loader = DataLoader(data, batch_size=8, sampler=RandomSampler(data))
        for (x,) in train_loader:
            print(x.mean())
            break
    for epoch in range(2):
        order = torch.randperm(len(data))
        for i in order:
            print(data[i][0].sum() + epoch)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
