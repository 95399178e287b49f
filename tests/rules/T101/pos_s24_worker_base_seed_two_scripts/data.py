import random

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Crops(Dataset):
    def __init__(self, root, size):
        self.root = root
        self.size = size

    def __len__(self):
        return 1000

    def __getitem__(self, i):
        x = random.randint(0, 512 - self.size)
        return torch.zeros(3, self.size, self.size), x


def build_loader(cfg):
    dataset = Crops(cfg["root"], cfg["crop"])
    sampler = DistributedSampler(dataset)
    return DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=cfg["workers"], persistent_workers=True)
