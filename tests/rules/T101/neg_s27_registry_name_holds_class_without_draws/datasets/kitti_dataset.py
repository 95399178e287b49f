# stagec fixture: s27 neg_registry_name_holds_class_without_draws (a dataset that crops at random)
import random

import torch
from torch.utils.data import Dataset


class KITTIDataset(Dataset):
    def __init__(self, datapath, list_filename, training):
        self.training = training
        self.images = torch.randn(64, 8, 32)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        if self.training:
            x1 = random.randint(0, 24)
            return self.images[index][:, x1 : x1 + 8]
        return self.images[index][:, :8]
