# stagec fixture: s32 neg_lightning_cli_config_init_args_zero (the model)
# named: with train.py
# expect: none in this file
# ----
import pytorch_lightning as pl
import torch


class ForecastModule(pl.LightningModule):
    def __init__(self, lr: float = 1e-3):
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Linear(8, 1)

    def training_step(self, batch, batch_idx):
        (x,) = batch
        return self.net(x).pow(2).mean()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
