# stagec fixture: s32 neg_hparams_with_ignore (issue 22, class 9; the look-alike of pos_hparams_of_init_parameters:
#                 `self.save_hyperparameters(ignore=["num_workers"])` leaves the worker count out of
#                 `self.hparams`; what the loader reads there is not the parameter)
# named: on the command line (`python train.py`, a Lightning Trainer on every GPU of the node)
# expect:
#   nothing: with `ignore=` the saved hyperparameters are not known to be the parameters
# ----
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset


class ForecastDataModule(pl.LightningDataModule):
    def __init__(self, root_dir, batch_size: int = 64, num_workers: int = 0, pin_memory: bool = False):
        super().__init__()
        self.save_hyperparameters(ignore=["num_workers"])
        self.train_set = TensorDataset(torch.randn(1024, 8))

    def train_dataloader(self):
        return DataLoader(
            self.train_set,
            batch_size=self.hparams.batch_size,
            num_workers=self.hparams.num_workers,
            pin_memory=self.hparams.pin_memory,
            shuffle=True,
        )


def main():
    data = ForecastDataModule("/data/era5", batch_size=128, num_workers=6)
    trainer = pl.Trainer(accelerator="gpu", devices=-1, max_epochs=50)
    trainer.fit(pl.LightningModule(), datamodule=data)


if __name__ == "__main__":
    main()
