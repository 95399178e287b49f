# stagec fixture: s34 neg_config_target_no_builder_runs (the model)
# named: with main.py
# expect: none in this file
# ----
import pytorch_lightning as pl
import torch


class LatentDiffusion(pl.LightningModule):
    def __init__(self, timesteps=1000, channels=4):
        super().__init__()
        self.num_timesteps = timesteps
        self.net = torch.nn.Conv2d(channels, channels, 3, padding=1)

    def training_step(self, batch, batch_idx):
        x = batch["latent"]
        t = torch.randint(0, self.num_timesteps, (x.shape[0],), device=self.device)
        noise = torch.randn_like(x)
        pred = self.net(x + noise * t.view(-1, 1, 1, 1) / self.num_timesteps)
        return torch.nn.functional.mse_loss(pred, noise)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-4)
