import functools

import torch
from pytorch_lightning import LightningDataModule
from torch.utils.data import ConcatDataset, DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Captions(Dataset):
    def __init__(self, split):
        self.split = split

    def __len__(self):
        return 1000

    def __getitem__(self, i):
        return torch.randint(0, 100, (16,))


class BaseDataModule(LightningDataModule):
    def __init__(self, config):
        super().__init__()
        self.batch_size = config["batch_size"]
        self.num_workers = config["num_workers"]

    def setup(self, stage):
        self.train_dataset = Captions("train")

    def train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=self.batch_size, shuffle=True, num_workers=self.num_workers)


class CocoDataModule(BaseDataModule):
    pass


class MultitaskDataModule(LightningDataModule):
    def __init__(self, config):
        super().__init__()
        self.dms = [CocoDataModule(config)]
        self.batch_size = config["batch_size"]
        self.num_workers = config["num_workers"]

    def setup(self, stage):
        for dm in self.dms:
            dm.setup(stage)
        self.train_dataset = ConcatDataset([dm.train_dataset for dm in self.dms])
        self.train_sampler = DistributedSampler(self.train_dataset, shuffle=True)

    def train_dataloader(self):
        return DataLoader(
            self.train_dataset,
            batch_size=self.batch_size,
            sampler=self.train_sampler,
            num_workers=self.num_workers,
        )
