# stagec fixture: neg_s21_dataset_seeds_from_base_seed (issue 22, class 3, a look-alike: the
#                 dataset reseeds numpy and `random` once per worker from `torch.initial_seed()`,
#                 the worker's base seed, which PyTorch draws per rank and per epoch)
# named: beside train.py, as pre-commit passes both
# expect: nothing
# ----
import random

import numpy as np
import torch
from torch.utils.data import Dataset


class FlowDataset(Dataset):
    def __init__(self, pairs, crop=256):
        self.pairs = pairs
        self.crop = crop
        self.init_seed = False

    def random_crop(self, a, b):
        y = np.random.randint(0, a.shape[1] - self.crop)
        x = np.random.randint(0, a.shape[2] - self.crop)
        if random.random() < 0.5:
            a, b = a.flip(-1), b.flip(-1)
        return a[:, y : y + self.crop, x : x + self.crop], b[:, y : y + self.crop, x : x + self.crop]

    def __getitem__(self, index):
        if not self.init_seed:
            worker_info = torch.utils.data.get_worker_info()
            if worker_info is not None:
                seed = torch.initial_seed() % 2**32
                np.random.seed(seed)
                random.seed(seed)
                self.init_seed = True
        a, b = self.pairs[index % len(self.pairs)]
        return self.random_crop(torch.load(a), torch.load(b))

    def __len__(self):
        return len(self.pairs)
