# stagec fixture: neg_s14_registry_one_class_fixed (the datasets; pycls's shape)
# named: on the command line with train.py
# expect: none in this file
# ----
import numpy as np
import torch

import augment


class Cifar10(torch.utils.data.Dataset):
    def __init__(self, split):
        self.split = split
        self.data = np.zeros((50000, 3, 32, 32), dtype=np.float32)

    def _prepare(self, im):
        if self.split == "train":
            im = augment.random_crop(np.pad(im, ((0, 0), (4, 4), (4, 4))), 32)
            im = augment.horizontal_flip(im)
        return im

    def __getitem__(self, i):
        return torch.from_numpy(self._prepare(self.data[i]).copy()), i % 10

    def __len__(self):
        return len(self.data)


class ImageNet(torch.utils.data.Dataset):
    def __init__(self, split):
        self.split = split

    def __getitem__(self, i):
        im = np.zeros((3, 224, 224), dtype=np.float32)
        return torch.from_numpy(im.copy()), i % 1000

    def __len__(self):
        return 1281167
