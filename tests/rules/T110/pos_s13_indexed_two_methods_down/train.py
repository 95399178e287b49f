# stagec fixture: pos_s13_indexed_two_methods_down (Pointcept's DefaultDataset)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the dataset's list is joined from each split's glob (`data_list += glob.glob(…)`),
#          kept as `self.data_list`, and indexed in `get_data`, which `__getitem__` reaches
#          through `prepare_train_data`; DistributedSampler hands ranks positions in it.
# expect:
#   T110 at 31:30 the split's listing is the sample order, two methods below __getitem__
# ----
import glob
import json
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class PointDataset(Dataset):
    def __init__(self, data_root, split=("train",)):
        self.data_root = data_root
        self.split = split
        self.data_list = self.get_data_list()

    def get_data_list(self):
        data_list = []
        for split in self.split:
            if os.path.isfile(os.path.join(self.data_root, split)):
                with open(os.path.join(self.data_root, split)) as f:
                    data_list += [os.path.join(self.data_root, d) for d in json.load(f)]
            else:
                data_list += glob.glob(os.path.join(self.data_root, split, "*"))
        return data_list

    def get_data(self, idx):
        return torch.load(self.data_list[idx % len(self.data_list)])

    def prepare_train_data(self, idx):
        return self.get_data(idx)

    def __getitem__(self, idx):
        return self.prepare_train_data(idx)

    def __len__(self):
        return len(self.data_list)


def main():
    dist.init_process_group("nccl")
    dataset = PointDataset("/data/scannet")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=4, sampler=sampler)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


if __name__ == "__main__":
    main()
