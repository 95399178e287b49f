from dataclasses import dataclass

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class CsvDataset(Dataset):
    def __init__(self, path):
        self.rows = open(path).read().splitlines()

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return torch.tensor(float(self.rows[i]))


@dataclass
class DataInfo:
    dataloader: DataLoader
    sampler: DistributedSampler = None

    def set_epoch(self, epoch):
        if self.sampler is not None:
            self.sampler.set_epoch(epoch)


def get_csv_dataset(args, is_train, epoch=0):
    dataset = CsvDataset("train.csv")
    sampler = DistributedSampler(dataset) if is_train else None
    dataloader = DataLoader(dataset, batch_size=32, num_workers=args.workers, sampler=sampler)
    return dataloader


def get_dataset_fn(dataset_type):
    if dataset_type == "csv":
        return get_csv_dataset
    raise ValueError(dataset_type)


def get_data(args, epoch=0):
    return get_dataset_fn(args.dataset_type)(args, is_train=True, epoch=epoch)
