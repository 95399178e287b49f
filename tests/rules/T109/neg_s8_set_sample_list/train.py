# stagec fixture: s8 neg_set_sample_list (issue 22, class 5; the look-alikes of
#                 pos_s8_set_sample_list)
# named: on the command line alone
# runtime: torch.multiprocessing.spawn, one fresh interpreter per rank
# expect: nothing
#   - `sorted(set(…) & …)`: a stable order on every rank;
#   - `list(set(range(n)))` and `list({int(x) for x in …})`: integers hash to themselves, the
#     same order in every process;
#   - `list(set(…))` of strings used for its length and for membership only;
#   - a list of a string set kept by a dataset that only rank 0 reads through a plain loader
#     (no sharding: the order is that one process's).
# ----
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Utterances(Dataset):
    def __init__(self, root):
        stems = set([name[:-3] for name in os.listdir(os.path.join(root, "feats"))])
        wavs = set(os.listdir(os.path.join(root, "wavs")))
        self.items = sorted(stems & wavs)
        self.ids = list(set(range(len(self.items))))
        self.labels = list({int(x.split("_")[0]) for x in self.items})
        names = list(set(os.listdir(os.path.join(root, "spk"))))
        self.n_speakers = len(names)
        self.known = names

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i], self.ids[i], self.labels[i % len(self.labels)], "x" in self.known


class Preview(Dataset):
    def __init__(self, root):
        self.files = list(set(os.listdir(root)))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        return self.files[i]


def run(rank, world, root):
    dist.init_process_group("nccl", rank=rank, world_size=world)
    data = Utterances(root)
    sampler = DistributedSampler(data, shuffle=True)
    loader = DataLoader(data, sampler=sampler, batch_size=8)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass
        if rank == 0:
            for item in DataLoader(Preview(os.path.join(root, "preview")), batch_size=4):
                print(item)


if __name__ == "__main__":
    n = torch.cuda.device_count()
    mp.spawn(run, args=(n, "/data"), nprocs=n)
