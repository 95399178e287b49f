# stagec fixture: t22h neg_shuffle_after_equal_seed (issue 22, class 3)
# named: on the command line (a torchrun script)
# expect: none
#   the data module shuffles with Python's and numpy's global RNGs and cuts the list, but the
#   script seeds both with the same flag value on every rank first (its own set_random_seed
#   helper): every rank shuffles into the same order.
# ----
import argparse
import json
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def set_random_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def split_rows(path):
    with open(path) as f:
        rows = json.load(f)
    random.shuffle(rows)
    cut = len(rows) * 9 // 10
    return rows[:cut], rows[cut:]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    set_random_seed(args.seed)
    train_rows, eval_rows = split_rows("rows.json")
    sampler = DistributedSampler(train_rows)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for batch in DataLoader(train_rows, batch_size=32, sampler=sampler):
            print(epoch, len(batch), len(eval_rows))


if __name__ == "__main__":
    main()
