# stagec fixture: s32 neg_hparams_changed_after_saving (issue 22, class 9; the look-alike of
#                 pos_hparams_of_saved_namespace: the data module saves the parsed arguments, then
#                 lowers `self.hparams["num_workers"]` in `setup()` for a small dataset)
# named: on the command line (`python train.py`, a Lightning Trainer with strategy="ddp" on 4 GPUs)
# expect:
#   nothing: the saved count is changed after saving; what the loader reads is not the flag's value
# ----
import argparse

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset


class DataModule(pl.LightningDataModule):
    def __init__(self, hparams):
        super().__init__()
        self.save_hyperparameters(hparams)
        self.train_set = TensorDataset(torch.randn(1024, 8))

    def setup(self, stage=None):
        if len(self.train_set) < 4096:
            self.hparams["num_workers"] = 0

    def train_dataloader(self):
        return DataLoader(
            self.train_set,
            batch_size=self.hparams["batch_size"],
            shuffle=True,
            num_workers=self.hparams["num_workers"],
            persistent_workers=False,
        )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--num_workers", type=int, default=4)
    parser.add_argument("--ngpus", type=int, default=4)
    args = parser.parse_args()
    data = DataModule(args)
    trainer = pl.Trainer(strategy="ddp", devices=args.ngpus, max_epochs=100)
    trainer.fit(pl.LightningModule(), datamodule=data)


if __name__ == "__main__":
    main()
