# stagec fixture project p3_core_api_module: trainer/data.py
# expect: no finding (the shard listing is sorted before it becomes the sample order).
# ----
import glob
import os

import torch
from torch.utils.data import Dataset


class ShardIndex(Dataset):
    """One item per (shard file, row) pair; rows are loaded lazily by the training loop."""

    def __init__(self, root: str, rows_per_shard: int = 256):
        self.paths = sorted(glob.glob(os.path.join(root, "*.pt")))
        self.rows = rows_per_shard

    def __len__(self):
        return len(self.paths) * self.rows

    def __getitem__(self, i):
        return self.paths[i // self.rows], i % self.rows


def collate_paths(items):
    paths = [p for p, _ in items]
    rows = torch.tensor([r for _, r in items])
    return paths, rows
