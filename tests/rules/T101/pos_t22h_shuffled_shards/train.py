# stagec fixture: t22h pos_shuffled_shards (issue 22, class 3)
# named: on the command line (a torchrun script, as pre-commit passes it)
# runtime: torchrun, one process per GPU; nothing seeds numpy or Python's random
# expect:
#   T101 at 29:9 np.random.shuffle(self.clips) in the dataset's __init__: each rank has its
#        own order, and the DistributedSampler hands ranks positions in it
#   T101 at 40:5 random.shuffle(shard_files) before a slice by rank: the ranks' slices
#        overlap
# ----
import os
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


def list_clips(index_file):
    with open(index_file) as f:
        return [line.strip() for line in f if line.strip()]


class ClipSet(Dataset):
    def __init__(self, index_file, frames=16):
        self.clips = list_clips(index_file)
        self.frames = frames
        # spread the long clips over the epoch
        np.random.shuffle(self.clips)

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, i):
        return torch.load(self.clips[i])[: self.frames]


def shard_names(root, rank, world):
    shard_files = [os.path.join(root, f"shard-{i:05d}.tar") for i in range(1024)]
    random.shuffle(shard_files)
    return shard_files[rank::world]


def main():
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    data = ClipSet("clips.txt")
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=8, sampler=sampler)
    for epoch in range(20):
        sampler.set_epoch(epoch)
        for clip in loader:
            print(epoch, clip.shape)
    print(shard_names("/data/shards", rank, world)[:4])


if __name__ == "__main__":
    main()
