# stagec fixture: s19 pos_listing_joined_by_plus (issue 22, class 4: the validation cities come from
#                 an unsorted listing and are joined before the sorted training cities with `+`;
#                 the joined list decides the order of the images the sampler shards)
# named: on the command line (the dataset module of a segmentation codebase)
# runtime: multi-rank (DistributedSampler)
# expect:
#   T110 at 22:39 os.listdir() returns directory order, which can differ between ranks …
# ----
import os
from os import path

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def cities_cv_split(root):
    trn_path = path.join(root, "leftImg8bit", "train")
    val_path = path.join(root, "leftImg8bit", "val")
    trn_cities = ["train/" + c for c in os.listdir(trn_path)]
    trn_cities = sorted(trn_cities)
    val_cities = ["val/" + c for c in os.listdir(val_path)]
    all_cities = val_cities + trn_cities
    return all_cities


class CityLoader(Dataset):
    def __init__(self, root):
        self.imgs = []
        for city in cities_cv_split(root):
            city_dir = path.join(root, "leftImg8bit", city)
            for name in sorted(os.listdir(city_dir)):
                self.imgs.append(path.join(city_dir, name))

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, index):
        return torch.load(self.imgs[index])


def build_loader(root, batch_size):
    dataset = CityLoader(root)
    return DataLoader(dataset, batch_size=batch_size, sampler=DistributedSampler(dataset))
