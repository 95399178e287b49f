# stagec fixture: s34 pos_lightning_cli_class_path_datamodule (the model)
# named: with train.py
# expect: none in this file
# ----
import pytorch_lightning as pl
import torch


class Vocoder(pl.LightningModule):
    def __init__(self, lr: float = 2e-4):
        super().__init__()
        self.net = torch.nn.Linear(16000, 16000)
        self.lr = lr

    def training_step(self, batch, batch_idx):
        return self.net(batch).pow(2).mean()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.lr)
