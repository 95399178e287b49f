# stagec fixture: pos_s21_listing_from_subclass_override (the base dataset)
# named: beside the other files, as pre-commit passes them
# expect: nothing in this file
# ----
import numpy as np
import torch
from torch.utils.data import Dataset


class DefaultDataset(Dataset):
    def __init__(self, split="train", data_root="data"):
        self.split = split
        self.data_root = data_root
        self.data_list = self.get_data_list()

    def get_data_list(self):
        raise NotImplementedError

    def get_data(self, idx):
        path = self.data_list[idx % len(self.data_list)]
        return torch.from_numpy(np.load(path))

    def __getitem__(self, idx):
        return self.get_data(idx)

    def __len__(self):
        return len(self.data_list)
