# stagec fixture project p2_legacy_package_entrypoint: seg/data.py
# expect:
#   T110 at 20:35 the unsorted listing is the tile order of
#        TileDataset; seg/trial.py wraps the dataset in determined.pytorch.DataLoader, which hands
#        each rank a different set of batch *indices*, so ranks whose listings differ overlap.
#        Fix: sorted(os.listdir(os.path.join(root, "images"))).
#   (no finding for the mask listing: it is sorted)
# ----
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class TileDataset(Dataset):
    def __init__(self, root: str, tile: int = 128):
        self.root = root
        self.tile = tile
        self.images = [f for f in os.listdir(os.path.join(root, "images")) if f.endswith(".npy")]
        self.masks = sorted(os.listdir(os.path.join(root, "masks")))

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        name = self.images[i]
        img = np.load(os.path.join(self.root, "images", name), mmap_mode="r")
        mask = np.load(os.path.join(self.root, "masks", name), mmap_mode="r")
        y0 = (i * 37) % max(1, img.shape[1] - self.tile)
        x0 = (i * 91) % max(1, img.shape[2] - self.tile)
        crop = np.ascontiguousarray(img[:, y0:y0 + self.tile, x0:x0 + self.tile], dtype=np.float32)
        target = np.ascontiguousarray(mask[y0:y0 + self.tile, x0:x0 + self.tile], dtype=np.int64)
        return torch.from_numpy(crop), torch.from_numpy(target)
