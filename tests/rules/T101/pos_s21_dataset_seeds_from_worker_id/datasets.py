# stagec fixture: pos_s21_dataset_seeds_from_worker_id (issue 22, class 3: an optical-flow
#                 dataset seeds torch, numpy and `random` in `__getitem__`, once per worker, from
#                 `get_worker_info().id` alone (RAFT's shape): worker k of every rank gets seed k,
#                 so the random crops and flips it draws repeat across the ranks)
# named: beside train.py, as pre-commit passes both
# expect:
#   T101 at 33:17 `FlowDataset.__getitem__` calls torch.manual_seed(worker_info.id) in each loader worker …
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
                torch.manual_seed(worker_info.id)
                np.random.seed(worker_info.id)
                random.seed(worker_info.id)
                self.init_seed = True
        a, b = self.pairs[index % len(self.pairs)]
        return self.random_crop(torch.load(a), torch.load(b))

    def __len__(self):
        return len(self.pairs)
