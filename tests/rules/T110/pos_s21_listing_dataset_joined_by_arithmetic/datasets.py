# stagec fixture: pos_s21_listing_dataset_joined_by_arithmetic (issue 22, class 4: an optical-flow
#                 dataset lists its scene folders with an unsorted `os.listdir` and appends each
#                 scene's frame pairs to `self.image_list`; the builder repeats and joins the
#                 datasets with arithmetic, `100 * clean + 100 * final + chairs` (the base class
#                 defines `__rmul__`, `+` makes a ConcatDataset), and the script shards the result
#                 with a DistributedSampler: the pair at each position depends on each node's
#                 directory order)
# named: beside train.py, as pre-commit passes both
# expect:
#   T110 at 45:22 os.listdir() returns directory order, which can differ between ranks …
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
        for scene in os.listdir(image_root):
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
