# stagec fixture: s19 neg_listings_joined_then_sorted (issue 22, class 4; the twin of
#                 pos_s19_listing_joined_by_plus: the joined list of cities is sorted, so every
#                 rank orders them alike)
# named: on the command line (the dataset module of a segmentation codebase)
# runtime: multi-rank (DistributedSampler)
# expect: nothing
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
    all_cities = sorted(val_cities + trn_cities)
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
