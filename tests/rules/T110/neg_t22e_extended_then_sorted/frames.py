# stagec fixture: t22e neg_extended_then_sorted (issue 22, class 4 traps; M18 variants' look-alikes)
# named: on the command line alone
# runtime: multi-rank: the process group is initialised; DistributedSampler shards by index
# expect: none.
#   The same `extend` and `+=` collections, but `self.frames` is sorted in place after it is
#   filled, the local list is sorted before the rank slices it, and the set of names is only
#   counted.
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
        self.frames.sort()

    def __len__(self):
        return len(self.frames)

    def __getitem__(self, i):
        return self.frames[i]


def main(dirs):
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    paths = []
    seen = set()
    for d in dirs:
        paths += os.listdir(d)
        seen.update(os.listdir(d))
    paths = sorted(paths)
    mine = paths[rank::world]
    ds = Frames(dirs)
    for b in DataLoader(ds, sampler=DistributedSampler(ds)):
        pass
    return mine, len(seen)
