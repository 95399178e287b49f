# stagec fixture: pos_s14_dataset_built_by_eval (the dataset)
# named: on the command line with train.py
# expect: none in this file
# ----
import random

import numpy as np
import torch
from torch.utils import data


class Cityscapes(data.Dataset):
    def __init__(self, root, crop_size=(512, 1024), flip=True):
        self.root = root
        self.crop_size = crop_size
        self.flip = flip

    def __len__(self):
        return 2975

    def rand_crop(self, image):
        h, w = image.shape[1:]
        x = random.randint(0, w - self.crop_size[1])
        y = random.randint(0, h - self.crop_size[0])
        return image[:, y : y + self.crop_size[0], x : x + self.crop_size[1]]

    def __getitem__(self, index):
        image = np.zeros((3, 1024, 2048), dtype=np.float32)
        image = self.rand_crop(image)
        if self.flip and np.random.choice(2) == 1:
            image = image[:, :, ::-1]
        return torch.from_numpy(image.copy()), index % 19
