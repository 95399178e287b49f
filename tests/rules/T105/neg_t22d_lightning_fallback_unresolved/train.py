# stagec fixture: t22d neg_lightning_fallback_unresolved (look-alike of pos_t22d_lightning_datamodule)
# named: on the command line (no config)
# runtime: multi-rank: pl.Trainer(strategy="ddp", devices=8)
# expect: none: train_dataloader()'s count falls back to batch_size * 2 with a batch size the
#         code cannot know (a function argument nobody passes a literal to); the caller's
#         explicit num_workers=0 in the second module starts no workers; the validation
#         loader keeps its workers (persistent_workers=True)
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


class Frames(pl.LightningDataModule):
    def __init__(self, train_set, batch_size, num_workers=None):
        super().__init__()
        self.train_set = train_set
        self.num_workers = num_workers if num_workers is not None else batch_size * 2

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=4, num_workers=self.num_workers)

    def val_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, num_workers=12, persistent_workers=True)


def main(model, train_set, batch_size):
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="ddp", max_epochs=50)
    trainer.fit(model, Captions(train_set, batch_size))
    trainer.fit(model, Frames(train_set, batch_size=8, num_workers=0))
