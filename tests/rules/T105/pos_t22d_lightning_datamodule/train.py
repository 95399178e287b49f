# stagec fixture: t22d pos_lightning_datamodule (issue 22, class 9; review marks M9)
# named: on the command line (no config: `python train.py` starts Lightning's 8 processes itself)
# runtime: multi-rank: pl.Trainer(strategy="ddp", devices=8) runs one process per GPU
# expect:
#   T105 at 30:13 num_workers falls back to batch_size * 2 = 16 (the caller passes batch_size=8
#        and no num_workers); the Trainer iterates train_dataloader()'s loader every epoch, so
#        8 local ranks × 16 workers start again at each epoch. Fix: persistent_workers=True.
#   T105 at 34:56 num_workers=12 in val_dataloader(): re-iterated at every validation run.
# ----
import pytorch_lightning as pl
import torch
from torch import nn
from torch.utils.data import DataLoader


class Captions(pl.LightningDataModule):
    def __init__(self, train_set, val_set, batch_size, num_workers=None, shuffle=True):
        super().__init__()
        self.train_set = train_set
        self.val_set = val_set
        self.batch_size = batch_size
        self.num_workers = num_workers if num_workers is not None else batch_size * 2
        self.shuffle = shuffle

    def train_dataloader(self):
        return DataLoader(
            self.train_set,
            batch_size=self.batch_size,
            shuffle=self.shuffle,
            num_workers=self.num_workers,
        )

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=32, num_workers=12)


class Model(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(16, 1)

    def training_step(self, batch, batch_idx):
        return self.net(batch).pow(2).mean()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-4)


def main(train_set, val_set):
    data = Captions(train_set, val_set, batch_size=8)
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="ddp", max_epochs=50)
    trainer.fit(Model(), data)
