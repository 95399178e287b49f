# stagec fixture: t22d neg_lightning_single_device (look-alike of pos_t22d_lightning_datamodule)
# named: on the command line (no config)
# runtime: one process: pl.Trainer(devices=1) without a multi-process strategy, and
#          strategy="ddp" with devices=1 is one process too
# expect: none (16 workers restart each epoch, but on one process only: not a per-rank multiplier)
# ----
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class Captions(pl.LightningDataModule):
    def __init__(self, train_set, batch_size, num_workers=None):
        super().__init__()
        self.train_set = train_set
        self.batch_size = batch_size
        self.num_workers = num_workers if num_workers is not None else batch_size * 2

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, num_workers=self.num_workers)

    def val_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, num_workers=12)


def main(model, train_set, debug):
    data = Captions(train_set, batch_size=8)
    if debug:
        trainer = pl.Trainer(accelerator="gpu", devices=1, strategy="ddp")
    else:
        trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=50)
    trainer.fit(model, data)
