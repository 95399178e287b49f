import random

import numpy as np
import torch
from torch.utils.data import Dataset
from torchvision import transforms


class Pad(object):
    def __call__(self, sample):
        image, label = sample
        return np.pad(image, ((0, 0), (0, 0), (0, 5))), label


class RandomCrop(object):
    def __call__(self, sample):
        image, label = sample
        h = random.randint(0, 240 - 128)
        w = random.randint(0, 240 - 128)
        return image[h:h + 128, w:w + 128], label[h:h + 128, w:w + 128]


class ToTensor(object):
    def __call__(self, sample):
        image, label = sample
        return torch.from_numpy(image).float(), torch.from_numpy(label).long()


def transform(sample):
    trans = transforms.Compose([
        Pad(),
        RandomCrop(),
        ToTensor(),
    ])
    return trans(sample)


class BraTS(Dataset):
    def __init__(self, list_file):
        with open(list_file) as f:
            self.paths = [line.strip() for line in f]

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        image, label = np.load(self.paths[i]), np.load(self.paths[i] + ".label.npy")
        return transform((image, label))
