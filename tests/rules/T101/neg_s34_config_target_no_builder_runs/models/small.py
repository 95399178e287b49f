# stagec fixture: s34 neg_config_target_no_builder_runs (the model the script builds)
# named: with main.py
# expect: none in this file
# ----
import pytorch_lightning as pl
import torch


class Regressor(pl.LightningModule):
    def __init__(self, channels):
        super().__init__()
        self.net = torch.nn.Linear(channels, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-4)
