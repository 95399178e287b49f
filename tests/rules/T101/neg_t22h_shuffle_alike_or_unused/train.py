# stagec fixture: t22h neg_shuffle_alike_or_unused (issue 22, class 3: look-alikes of an
# unseeded shuffle before a split)
# named: on the command line (a torchrun script; nothing seeds the global RNGs)
# expect: none
#   - the held-out cut is shuffled by a generator seeded with a constant: the same on every rank;
#   - the shard list is shuffled with numpy's seeded Generator: the same on every rank;
#   - the curriculum is shuffled on rank 0 only and broadcast to the others;
#   - the bucket order is shuffled on every rank, then rank 0's order is broadcast to all;
#   - the preview list is shuffled, but only read for a log line and a count (no split, no shard).
# ----
import json
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def held_out_cut(path):
    with open(path) as f:
        records = json.load(f)
    random.Random(1234).shuffle(records)
    cut = int(len(records) * 0.95)
    return records[:cut], records[cut:]


def shard_order(n, rank, world):
    shards = [f"part-{i:04d}" for i in range(n)]
    rng = np.random.default_rng(7)
    rng.shuffle(shards)
    return shards[rank::world]


def curriculum(levels):
    order = [[i] for i in range(levels)]
    if dist.get_rank() == 0:
        random.shuffle(order)
    dist.broadcast_object_list(order, src=0)
    return order[: levels // 2], order[levels // 2 :]


def buckets(n):
    order = list(range(n))
    random.shuffle(order)
    dist.broadcast_object_list(order, src=0)
    return order[: n // 2], order[n // 2 :]


def preview(path):
    with open(path) as f:
        lines = f.readlines()
    random.shuffle(lines)
    print("a few samples:", lines[:3])
    return len(lines)


def main():
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    train_rows, eval_rows = held_out_cut("rows.json")
    print(len(train_rows), len(eval_rows), shard_order(64, rank, world), curriculum(4), buckets(8), preview("rows.txt"))
    data = TensorDataset(torch.randn(4096, 8))
    sampler = DistributedSampler(data)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for (x,) in DataLoader(data, batch_size=64, sampler=sampler):
            print(epoch, x.sum().item())


if __name__ == "__main__":
    main()
