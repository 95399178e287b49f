# stagec fixture: neg_s21_listing_dataset_joined_by_arithmetic_sorted (issue 22, class 4, a
#                 look-alike: the scene folders are listed with `sorted(os.listdir(…))` before
#                 the datasets are repeated, joined and sharded)
# named: beside train.py, as pre-commit passes both
# expect: nothing
# ----
import os
import os.path as osp
from glob import glob

import numpy as np
import torch
from torch.utils.data import Dataset


class FlowDataset(Dataset):
    def __init__(self):
        self.image_list = []
        self.flow_list = []

    def __getitem__(self, index):
        index = index % len(self.image_list)
        a, b = self.image_list[index]
        return torch.from_numpy(np.load(a)), torch.from_numpy(np.load(b))

    def __rmul__(self, v):
        self.flow_list = v * self.flow_list
        self.image_list = v * self.image_list
        return self

    def __len__(self):
        return len(self.image_list)


class Sintel(FlowDataset):
    def __init__(self, root="datasets/Sintel", dstype="clean"):
        super().__init__()
        image_root = osp.join(root, "training", dstype)
        flow_root = osp.join(root, "training", "flow")
        for scene in sorted(os.listdir(image_root)):
            frames = sorted(glob(osp.join(image_root, scene, "*.png")))
            for i in range(len(frames) - 1):
                self.image_list += [[frames[i], frames[i + 1]]]
            self.flow_list += sorted(glob(osp.join(flow_root, scene, "*.flo")))


class Chairs(FlowDataset):
    def __init__(self, root="datasets/Chairs"):
        super().__init__()
        images = sorted(glob(osp.join(root, "*.ppm")))
        for i in range(len(images) // 2):
            self.image_list += [[images[2 * i], images[2 * i + 1]]]


def build_train_dataset():
    clean = Sintel(dstype="clean")
    final = Sintel(dstype="final")
    chairs = Chairs()
    return 100 * clean + 100 * final + chairs
