# stagec fixture: s18 pos_frames_concatenated_in_listing_order (issue 22, class 4; review 22b's
#                 Video-LLaMA webvid_datasets.py:30: one annotation frame per listed CSV,
#                 stacked by `pd.concat` and read by position with `.iloc[index]`)
# named: on the command line (a torchrun script)
# runtime: multi-rank (DistributedSampler)
# expect:
#   T110 at 20:26 the listing's order is the frame's row order, which the sampler shards.
# ----
import os

import pandas as pd
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Captions(Dataset):
    def __init__(self, ann_root):
        frames = []
        for file_name in os.listdir(ann_root):
            if file_name.endswith(".csv"):
                frames.append(pd.read_csv(os.path.join(ann_root, file_name)))
        self.annotation = pd.concat(frames)

    def __len__(self):
        return len(self.annotation)

    def __getitem__(self, index):
        row = self.annotation.iloc[index]
        return torch.tensor(len(row["caption"]))


def main():
    dist.init_process_group("nccl")
    dataset = Captions("annotations")
    loader = DataLoader(dataset, batch_size=16, sampler=DistributedSampler(dataset))
    for epoch in range(3):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            pass


if __name__ == "__main__":
    main()
