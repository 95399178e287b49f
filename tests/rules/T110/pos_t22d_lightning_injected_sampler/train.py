# stagec fixture: t22d pos_lightning_injected_sampler (issue 22, class 4; review mark M13)
# named: on the command line (no config: `python train.py` starts Lightning's 8 processes itself)
# runtime: multi-rank: pl.Trainer(strategy="deepspeed_stage_2", devices=8); Lightning puts a
#          DistributedSampler into train_dataloader()'s loader, which hands each rank positions
# expect:
#   T110 at 21:25 os.listdir() order kept as self._mmcifs and indexed in __getitem__: each rank
#        may list the directory in another order, so the sampler's positions name other files.
#        Fix: sorted(os.listdir(...)).
# ----
import os

import pytorch_lightning as pl
from torch.utils.data import DataLoader, Dataset


class Complexes(Dataset):
    def __init__(self, mmcif_dir, max_len):
        self.max_len = max_len
        self._mmcifs = [
            name.split(".")[0]
            for name in os.listdir(mmcif_dir)
            if name.endswith(".cif")
        ]

    def __getitem__(self, idx):
        return self._mmcifs[idx]

    def __len__(self):
        return len(self._mmcifs)


class Structures(pl.LightningDataModule):
    def __init__(self, mmcif_dir):
        super().__init__()
        self.mmcif_dir = mmcif_dir

    def setup(self, stage=None):
        self.train_dataset = Complexes(self.mmcif_dir, max_len=256)

    def train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=1, shuffle=True)


def main(model, mmcif_dir):
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="deepspeed_stage_2")
    trainer.fit(model, datamodule=Structures(mmcif_dir))
