# stagec fixture: pos_s30_lightning_step_draws_alike (issue 22, class 3: a latent-diffusion style
#   LightningModule: `training_step` → `shared_step` → `self(x)` → `forward` draws the timesteps,
#   `p_losses` the noise; the script seeds every rank with one seed)
# named: on the command line (`python train.py`: Lightning starts the 8 processes)
# runtime: multi-rank: pl.Trainer(strategy="ddp", devices=8)
# expect:
#   T101 at 48:5 every rank draws the same timesteps (`torch.randint` in `forward`, three calls
#        below `training_step`) at every step
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

    def forward(self, x):
        t = torch.randint(0, self.num_timesteps, (x.shape[0],), device=self.device).long()
        return self.p_losses(x, t)

    def p_losses(self, x_start, t):
        noise = torch.randn_like(x_start)
        return F.mse_loss(self.net(x_start + noise), noise)

    def shared_step(self, batch):
        return self(batch["image"])

    def training_step(self, batch, batch_idx):
        loss = self.shared_step(batch)
        self.log("train/loss", loss)
        return loss

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
