# stagec fixture: neg_s29_rank_zero_only_logs_and_keeps_plain_attrs (look-alike of
#   pos_s29_ldm_scale_factor_on_rank_zero)
# named: on the command line (a Lightning script, no config)
# runtime: multi-rank (Trainer with strategy="ddp" on 8 devices)
# expect: nothing:
#   - `log_images` only logs (what @rank_zero_only is for);
#   - `on_train_start` keeps a plain attribute (a timer), no buffer or weight;
#   - `on_train_batch_start` registers the buffer on every rank (no decorator)
# ----
import time

import pytorch_lightning as pl
import torch
from pytorch_lightning.utilities import rank_zero_only


class LatentDiffusion(pl.LightningModule):
    def __init__(self, encoder, unet):
        super().__init__()
        self.encoder = encoder
        self.unet = unet
        self.register_buffer("scale_factor", torch.tensor(1.0))

    @rank_zero_only
    def log_images(self, images):
        self.logger.experiment.add_images("samples", images, self.global_step)

    @rank_zero_only
    def on_train_start(self):
        self.started = time.time()

    @torch.no_grad()
    def on_train_batch_start(self, batch, batch_idx):
        if self.global_step == 0 and batch_idx == 0:
            z = self.encoder(batch["image"]).detach()
            std = self.all_gather(z.flatten().std()).mean()
            del self.scale_factor
            self.register_buffer("scale_factor", 1.0 / std)

    def training_step(self, batch, batch_idx):
        z = self.encoder(batch["image"]) * self.scale_factor
        noise = torch.randn_like(z)
        return (self.unet(z + noise) - noise).pow(2).mean()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-4)


def main(encoder, unet, loader):
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="ddp", max_epochs=10)
    trainer.fit(LatentDiffusion(encoder, unet), loader)
