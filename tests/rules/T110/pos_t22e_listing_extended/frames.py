# stagec fixture: t22e pos_listing_extended (issue 22, class 4; review mark M18's variants)
# named: on the command line alone
# runtime: multi-rank: the process group is initialised; DistributedSampler shards by index
# expect:
#   T110 at 19:32 each folder's unsorted glob extends `self.frames`, which __getitem__ indexes.
#   T110 at 33:18 the listings are added (`+=`) to a local list that is then sliced by rank.
# ----
import glob
import os

import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Frames(Dataset):
    def __init__(self, dirs):
        self.frames = []
        for d in dirs:
            self.frames.extend(glob.glob(os.path.join(d, "*.png")))

    def __len__(self):
        return len(self.frames)

    def __getitem__(self, i):
        return self.frames[i]


def main(dirs):
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    paths = []
    for d in dirs:
        paths += os.listdir(d)
    mine = paths[rank::world]
    ds = Frames(dirs)
    for b in DataLoader(ds, sampler=DistributedSampler(ds)):
        pass
    return mine
