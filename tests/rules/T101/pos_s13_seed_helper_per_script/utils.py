# stagec fixture: pos_s13_seed_helper_per_script (the shared helpers)
# named: on the command line with main_pretrain.py and main_linear.py
# expect: none in this file (each script's call chooses the seed)
# ----
import random

import numpy as np
import torch
from torch.utils.data import Dataset
from torchvision import transforms


def fix_random_seeds(seed=31):
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    np.random.seed(seed)


class MultiCrop(Dataset):
    def __init__(self, paths):
        self.paths = paths
        self.crop = transforms.RandomResizedCrop(224)

    def __getitem__(self, i):
        img = torch.load(self.paths[i])
        return self.crop(img), random.random()

    def __len__(self):
        return len(self.paths)
