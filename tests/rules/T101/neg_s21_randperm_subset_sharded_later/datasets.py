# stagec fixture: neg_s21_randperm_subset_sharded_later (issue 22, class 3, a look-alike: a
#                 smoke-test switch cuts each dataset to a random subset,
#                 `Subset(ds, torch.randperm(len(ds))[:n])`, and the training script then
#                 shards that subset with a DistributedSampler. Every rank seeds torch with the
#                 same value, so every rank picks the same subset: what the sampler needs to
#                 split one set into disjoint shards. A rank-dependent draw would be the bug.)
# named: with train.py (`torchrun --nproc_per_node=8 train.py`)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: nothing
# ----
import os

import torch
from torch.utils.data import Subset, TensorDataset

SMOKE = os.environ.get("SMOKE_TEST", "0") == "1"


def build(total_batch: int):
    train = TensorDataset(torch.randn(4096, 8), torch.randint(0, 4, (4096,)))
    val = TensorDataset(torch.randn(512, 8), torch.randint(0, 4, (512,)))
    if SMOKE:
        keep = total_batch * 2
        train = Subset(train, torch.randperm(len(train))[:keep])
        val = Subset(val, torch.randperm(len(val))[:keep])
    return train, val
