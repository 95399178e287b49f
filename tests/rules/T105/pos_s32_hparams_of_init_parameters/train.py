# stagec fixture: s32 pos_hparams_of_init_parameters (issue 22, class 9; review 38b's ClimaX and
#                 pdearena data modules: `self.save_hyperparameters()` with no argument saves the
#                 `__init__`'s parameters, read back as `self.hparams.num_workers`)
# named: on the command line (`python train.py`, a Lightning Trainer on every GPU of the node)
# expect:
#   T105 at 23:13 num_workers=6, given by the script, through the saved `__init__` parameter
# ----
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset


class ForecastDataModule(pl.LightningDataModule):
    def __init__(self, root_dir, batch_size: int = 64, num_workers: int = 0, pin_memory: bool = False):
        super().__init__()
        self.save_hyperparameters(logger=False)
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
