# stagec fixture: s32 neg_lightning_cli_config_init_args_zero (the data module)
# named: with train.py
# expect:
#   nothing: `data.init_args.num_workers: 0`, the loader starts no workers
# ----
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset


class ForecastDataModule(pl.LightningDataModule):
    def __init__(self, root_dir: str, batch_size: int = 64, num_workers: int = 0, pin_memory: bool = False):
        super().__init__()
        self.save_hyperparameters(logger=False)
        self.train_set = None

    def setup(self, stage=None):
        self.train_set = TensorDataset(torch.randn(1024, 8))

    def train_dataloader(self):
        return DataLoader(
            self.train_set,
            batch_size=self.hparams.batch_size,
            shuffle=True,
            num_workers=self.hparams.num_workers,
            pin_memory=self.hparams.pin_memory,
        )
