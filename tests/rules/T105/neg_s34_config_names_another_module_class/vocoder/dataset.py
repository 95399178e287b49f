# stagec fixture: s34 neg_config_names_another_module_class (the data module)
# named: with train.py
# expect: nothing: the config names `speech.dataset.ClipDataModule`, not this class, so
#         nothing says what this class's `train_params` hold
# ----
from dataclasses import dataclass

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, Dataset


@dataclass
class DataConfig:
    filelist_path: str
    batch_size: int
    num_workers: int


class ClipDataset(Dataset):
    def __init__(self, cfg: DataConfig):
        self.files = open(cfg.filelist_path).read().splitlines()

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        return torch.zeros(16000)


class ClipDataModule(pl.LightningDataModule):
    def __init__(self, train_params: DataConfig):
        super().__init__()
        self.train_config = train_params

    def train_dataloader(self):
        cfg = self.train_config
        return DataLoader(
            ClipDataset(cfg), batch_size=cfg.batch_size, num_workers=cfg.num_workers, shuffle=True
        )
