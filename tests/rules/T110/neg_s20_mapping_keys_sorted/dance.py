# stagec fixture: neg_s20_mapping_keys_sorted (issue 22, class 4: the same dataset, but the
#                 mapping's keys are read back sorted, and a second mapping keyed by the
#                 entries is only looked up by name: neither order reaches a position)
# named: on the command line
# runtime: multi-rank (DistributedSampler)
# expect: nothing
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
        self.seq_len = {}
        for vid in os.listdir(self.split_dir):
            self.seq_len[vid] = len(os.listdir(os.path.join(self.split_dir, vid, "img1")))
        self.labels_full = defaultdict(lambda: defaultdict(list))
        for vid in os.listdir(self.split_dir):
            gt_path = os.path.join(self.split_dir, vid, "gt", "gt.txt")
            for line in open(gt_path):
                t, i, *xywh = line.strip().split(",")[:6]
                self.labels_full[vid][int(t)].append([float(v) for v in xywh] + [int(i)])
        vid_files = sorted(self.labels_full.keys())
        self.indices = []
        for vid in vid_files:
            t_min = min(self.labels_full[vid].keys())
            t_max = max(self.labels_full[vid].keys()) + 1
            for t in range(t_min, t_max - frames_per_clip):
                self.indices.append((vid, t))

    def __getitem__(self, idx):
        vid, t = self.indices[idx]
        t = min(t, self.seq_len[vid] - 1)
        return torch.tensor(self.labels_full[vid][t])

    def __len__(self):
        return len(self.indices)


def build_loader(root, batch_size):
    dist.init_process_group("nccl")
    dataset = DetMOTDetection(root, 5)
    sampler = DistributedSampler(dataset)
    return DataLoader(dataset, batch_size, sampler=sampler)
