# stagec fixture: s34 pos_model_named_by_config_target_draws_noise (the data module)
# named: with main.py
# expect: none in this file
# ----
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset


class Latents(pl.LightningDataModule):
    def __init__(self, batch_size=8):
        super().__init__()
        self.batch_size = batch_size

    def train_dataloader(self):
        data = TensorDataset(torch.zeros(64, 4, 32, 32))
        return DataLoader(data, batch_size=self.batch_size, shuffle=True)
