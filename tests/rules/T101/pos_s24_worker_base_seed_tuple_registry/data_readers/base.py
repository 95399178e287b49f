import numpy as np
import torch
from torch.utils import data


class RGBDDataset(data.Dataset):
    def __init__(self, name, datapath, n_frames=4):
        self.name = name
        self.datapath = datapath
        self.n_frames = n_frames

    def __len__(self):
        return 1000

    def __getitem__(self, index):
        frames = np.arange(32)
        ix = np.random.choice(frames)
        return torch.full((self.n_frames, 3), float(ix + index))


class TartanAir(RGBDDataset):
    def __init__(self, **kwargs):
        super().__init__(name="TartanAir", **kwargs)
