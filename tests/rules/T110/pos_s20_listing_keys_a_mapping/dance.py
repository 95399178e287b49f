# stagec fixture: pos_s20_listing_keys_a_mapping (issue 22, class 4: a multi-object-tracking
#                 dataset fills a mapping keyed by the entries of an unsorted listing, reads its
#                 keys back in insertion order and appends one index per frame to the list
#                 `__getitem__` reads; the DistributedSampler hands ranks positions in it)
# named: on the command line
# runtime: multi-rank (DistributedSampler)
# expect:
#   T110 at 23:20 os.listdir() returns directory order, which can differ between ranks …
# ----
import os
from collections import defaultdict

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class DetMOTDetection(Dataset):
    def __init__(self, root, frames_per_clip):
        self.split_dir = os.path.join(root, "DanceTrack", "train")
        self.labels_full = defaultdict(lambda: defaultdict(list))
        for vid in os.listdir(self.split_dir):
            gt_path = os.path.join(self.split_dir, vid, "gt", "gt.txt")
            for line in open(gt_path):
                t, i, *xywh = line.strip().split(",")[:6]
                self.labels_full[vid][int(t)].append([float(v) for v in xywh] + [int(i)])
        vid_files = list(self.labels_full.keys())
        self.indices = []
        for vid in vid_files:
            t_min = min(self.labels_full[vid].keys())
            t_max = max(self.labels_full[vid].keys()) + 1
            for t in range(t_min, t_max - frames_per_clip):
                self.indices.append((vid, t))

    def __getitem__(self, idx):
        vid, t = self.indices[idx]
        return torch.tensor(self.labels_full[vid][t])

    def __len__(self):
        return len(self.indices)


def build_loader(root, batch_size):
    dist.init_process_group("nccl")
    dataset = DetMOTDetection(root, 5)
    sampler = DistributedSampler(dataset)
    return DataLoader(dataset, batch_size, sampler=sampler)
