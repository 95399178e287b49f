# stagec fixture: neg_s30_lightning_draws_only_in_validation (issue 22, class 3's look-alike of
#   pos_s30_lightning_step_draws_alike: the training step's noise comes with the batch, and only
#   the validation step draws, where alike samples across ranks do no harm to training)
# named: on the command line (`python train.py`: Lightning starts the 8 processes)
# runtime: multi-rank: pl.Trainer(strategy="ddp", devices=8)
# expect: nothing (no draw on the training step's way)
# ----
import argparse

import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from pytorch_lightning import seed_everything


class Diffusion(pl.LightningModule):
    def __init__(self, timesteps=1000):
        super().__init__()
        self.num_timesteps = timesteps
        self.net = torch.nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, x, noise):
        return F.mse_loss(self.net(x + noise), noise)

    def shared_step(self, batch):
        return self(batch["image"], batch["noise"])

    def training_step(self, batch, batch_idx):
        loss = self.shared_step(batch)
        self.log("train/loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        sample = torch.randn_like(batch["image"])
        self.log("val/mean", self.net(sample).mean(), sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-4)


def main(loader):
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    seed_everything(args.seed)
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="ddp", max_epochs=10)
    trainer.fit(Diffusion(), train_dataloaders=loader)


if __name__ == "__main__":
    main(None)
