# stagec fixture: t22e pos_indexed_through_helper (issue 22, class 4; review marks M6, M12)
# named: on the command line alone
# runtime: multi-rank: the process group is initialised; DistributedSampler shards by index
# expect:
#   T110 at 24:28 the unsorted listing is the index space of `Structures`, read through the
#        helper `name_of(idx)` that __getitem__ calls.
#   T110 at 38:17 the unsorted listing is kept by a plain class (`ClipIndex`) and indexed in
#        its `clip(idx)`, which the wrapping dataset's __getitem__ calls.
# ----
import os

import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


def load(path):
    with open(path, "rb") as f:
        return f.read()


class Structures(Dataset):
    def __init__(self, root):
        self.root = root
        self._names = list(os.listdir(root))

    def name_of(self, idx):
        return self._names[idx]

    def __getitem__(self, idx):
        return load(os.path.join(self.root, self.name_of(idx)))

    def __len__(self):
        return len(self._names)


class ClipIndex:
    def __init__(self, folder):
        found = os.listdir(folder)
        self.clips = [c[:-4] for c in found if c.endswith(".mp4")]

    def clip(self, i):
        return self.clips[i]


class Clips(Dataset):
    def __init__(self, index):
        self.index = index

    def __getitem__(self, i):
        return self.index.clip(i)

    def __len__(self):
        return len(self.index.clips)


def main(root, videos):
    dist.init_process_group("nccl")
    for ds in (Structures(root), Clips(ClipIndex(videos))):
        for batch in DataLoader(ds, sampler=DistributedSampler(ds), batch_size=2):
            pass
