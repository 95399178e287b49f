# stagec fixture: s18 neg_frames_concatenated_sorted (issue 22, class 4; the twin of
#                 pos_s18_frames_concatenated_in_listing_order: the listing is sorted first)
# named: on the command line (a torchrun script)
# runtime: multi-rank (DistributedSampler)
# expect: nothing
# ----
import os

import pandas as pd
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Captions(Dataset):
    def __init__(self, ann_root):
        frames = []
        for file_name in sorted(os.listdir(ann_root)):
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
