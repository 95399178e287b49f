# stagec fixture: t22d neg_lightning_sampler_off (look-alike of pos_t22d_lightning_injected_sampler)
# named: on the command line (no config)
# runtime: multi-rank: pl.Trainer(strategy="ddp", devices=8), but use_distributed_sampler=False:
#          Lightning injects no sampler, so no positions are handed out across ranks
# expect: none (Complexes' listing is unsorted, yet every rank reads the whole list in its own
#         shuffled order: no rank is handed positions in another rank's list)
# ----
import os

import pytorch_lightning as pl
from torch.utils.data import DataLoader, Dataset


class Complexes(Dataset):
    def __init__(self, mmcif_dir):
        self._mmcifs = [name.split(".")[0] for name in os.listdir(mmcif_dir)]

    def __getitem__(self, idx):
        return self._mmcifs[idx]

    def __len__(self):
        return len(self._mmcifs)


class Structures(pl.LightningDataModule):
    def __init__(self, mmcif_dir):
        super().__init__()
        self.train_dataset = Complexes(mmcif_dir)

    def train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=1, shuffle=True)


def main(model, mmcif_dir):
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="ddp", use_distributed_sampler=False)
    trainer.fit(model, datamodule=Structures(mmcif_dir))
