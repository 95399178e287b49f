# stagec fixture: s8 pos_dataset_consumer_unseen (issue 22, class 4; review 11a's M24, as
#                 imagen-pytorch leaves its image folder dataset to the user)
# named: on the command line, with pkg/__init__.py and pkg/trainer.py
# runtime: multi-rank: the package's trainer prepares its loaders with Accelerate
# expect:
#   T110 at 30:34 the dataset's paths come from Path.glob in directory order and are indexed
#        in __getitem__; the only loader the package builds over it leaves through a function
#        nothing in the package calls, and the package's trainer shards the loaders it is
#        handed: ranks whose listings differ read overlapping images.
#   T110 at 43:22 a dataset no code constructs (a registry fills it by a decorator) in a
#        program that shards samples.
# ----
import os
from pathlib import Path

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

DATASETS = {}


def register(cls):
    DATASETS[cls.__name__] = cls
    return cls


class Folder(Dataset):
    def __init__(self, root):
        self.paths = [p for p in Path(root).glob("**/*.png")]

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return torch.as_tensor(list(Image.open(self.paths[i]).getdata()))


@register
class Pairs(Dataset):
    def __init__(self, opt):
        self.opt = opt
        self.names = os.listdir(opt["root"])

    def __len__(self):
        return len(self.names)

    def __getitem__(self, i):
        return self.names[i]


def images_loader(root, batch_size):
    return DataLoader(Folder(root), batch_size=batch_size, shuffle=True)
