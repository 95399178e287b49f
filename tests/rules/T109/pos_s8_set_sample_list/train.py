# stagec fixture: s8 pos_set_sample_list (issue 22, class 5; review 12b's M10-M14, as
#                 GPT-SoVITS builds its utterance list)
# named: on the command line alone
# runtime: torch.multiprocessing.spawn, one fresh interpreter per rank
# expect:
#   T109 at 38:22 the utterances kept are `list(…)` of an intersection of string sets (file
#        stems and the transcript's keys): each spawned rank iterates it in its own hash order,
#        and the seeded shuffle after it starts from that order, so the bucket sampler (a
#        DistributedSampler subclass) gives ranks overlapping shards. Fix: sorted(…).
#   T109 at 40:22 the same through a name bound to a set difference of listings.
#   T109 at 41:25 a list made of a set comprehension of names, kept and indexed through a helper
#        the dataset's __getitem__ calls.
# ----
import os
import random

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class BucketSampler(DistributedSampler):
    def __init__(self, dataset, batch_size, boundaries):
        super().__init__(dataset, shuffle=True)
        self.batch_size = batch_size
        self.boundaries = boundaries


class Utterances(Dataset):
    def __init__(self, root, transcript):
        with open(transcript, encoding="utf8") as f:
            lines = f.read().strip("\n").split("\n")
        self.text = {line.split("\t")[0]: line.split("\t")[1] for line in lines}
        stems = set([name[:-3] for name in os.listdir(os.path.join(root, "feats"))])
        wavs = set(os.listdir(os.path.join(root, "wavs")))
        self.items = list(set(self.text) & stems & wavs)
        extra = set(os.listdir(os.path.join(root, "extra"))) - set(os.listdir(os.path.join(root, "bad")))
        self.extra = list(extra)
        self.speakers = list({name.lower() for name in os.listdir(os.path.join(root, "spk"))})
        random.seed(1234)
        random.shuffle(self.items)

    def speaker(self, i):
        return self.speakers[i % len(self.speakers)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i], self.extra[i % len(self.extra)], self.speaker(i)


def run(rank, world, root):
    dist.init_process_group("nccl", rank=rank, world_size=world)
    data = Utterances(root, os.path.join(root, "text.tsv"))
    sampler = BucketSampler(data, 8, [32, 64, 128])
    loader = DataLoader(data, batch_sampler=None, sampler=sampler, batch_size=8)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


if __name__ == "__main__":
    n = torch.cuda.device_count()
    mp.spawn(run, args=(n, "/data"), nprocs=n)
