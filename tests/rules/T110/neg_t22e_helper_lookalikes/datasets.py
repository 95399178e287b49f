# stagec fixture: t22e neg_helper_lookalikes (issue 22, class 4 traps; marks M6, M12 look-alikes)
# named: on the command line alone
# runtime: multi-rank: the process group is initialised; DistributedSampler shards by index
# expect: none.
#   `Structures` reads its listing through a helper too, but sorts it in place first;
#   `ClipIndex`'s listing is sorted where it is made; `Catalog` indexes its unsorted listing
#   in a helper that only `describe()` calls (never __getitem__), and its __getitem__ reads
#   a sorted copy.
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
        self._names.sort()

    def name_of(self, idx):
        return self._names[idx]

    def __getitem__(self, idx):
        return load(os.path.join(self.root, self.name_of(idx)))

    def __len__(self):
        return len(self._names)


class ClipIndex:
    def __init__(self, folder):
        found = sorted(os.listdir(folder))
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


class Catalog(Dataset):
    def __init__(self, root):
        self.raw = os.listdir(root)
        self.ordered = sorted(os.listdir(root))

    def entry(self, i):
        return self.raw[i]

    def describe(self, i):
        return f"{i}: {self.entry(i)}"

    def __getitem__(self, i):
        return self.ordered[i]

    def __len__(self):
        return len(self.ordered)


def main(root, videos):
    dist.init_process_group("nccl")
    for ds in (Structures(root), Clips(ClipIndex(videos)), Catalog(root)):
        for batch in DataLoader(ds, sampler=DistributedSampler(ds), batch_size=2):
            pass
