# stagec fixture: pos_s20_listing_repeated (issue 22, class 4: a video-object-segmentation
#                 codebase's synthetic-sequence dataset repeats each image folder's unsorted
#                 listing `multiplier` times into the list that `__getitem__` indexes; the
#                 DistributedSampler hands ranks positions in it)
# named: on the command line
# runtime: multi-rank (DistributedSampler, LOCAL_RANK)
# expect:
#   T110 at 33:52 os.listdir() returns directory order, which can differ between ranks …
# ----
import os
from os import path

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

local_rank = int(os.environ["LOCAL_RANK"])


class SyntheticVideoDataset(Dataset):
    def __init__(self, parameters, *, size=384):
        self.size = size
        self.im_list = []
        for root, method, multiplier in parameters:
            if method == 0:
                for c in sorted(os.listdir(root)):
                    imgs = sorted(os.listdir(path.join(root, c)))
                    joint = [path.join(root, c, im) for im in imgs if im.lower().endswith("jpg")]
                    self.im_list.extend(joint * multiplier)
            elif method == 1:
                self.im_list.extend(
                    [path.join(root, im) for im in os.listdir(root) if ".jpg" in im] * multiplier
                )

    def __getitem__(self, idx):
        return torch.as_tensor(Image.open(self.im_list[idx]).size)

    def __len__(self):
        return len(self.im_list)


def setup_training_data(parameters, batch_size, workers):
    dataset = SyntheticVideoDataset(parameters)
    sampler = DistributedSampler(dataset, rank=local_rank, shuffle=True)
    return sampler, DataLoader(dataset, batch_size, sampler=sampler, num_workers=workers,
                               persistent_workers=workers > 0)
