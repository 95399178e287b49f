# stagec fixture: pos_s29_ldm_scale_factor_on_rank_zero (issue 22, class "other"; latent
#   diffusion's std rescaling, copied by many audio and video diffusion trainers: the buffer is
#   registered again from the first batch's latents under @rank_zero_only; and an EMA decay
#   written into a parameter's data on rank 0 alone)
# named: on the command line (a Lightning script, no config)
# runtime: multi-rank (Trainer with strategy="ddp" on 8 devices)
# expect:
#   T116 at 32:13 `self.register_buffer("scale_factor", …)` changes the model's state in `on_train_batch_start` …
#   T116 at 37:9 `self.logit_scale.data.clamp_(…)` …
# ----
import pytorch_lightning as pl
import torch
from pytorch_lightning.utilities import rank_zero_only


class LatentDiffusion(pl.LightningModule):
    def __init__(self, encoder, unet, scale_by_std=True):
        super().__init__()
        self.encoder = encoder
        self.unet = unet
        self.scale_by_std = scale_by_std
        self.register_buffer("scale_factor", torch.tensor(1.0))
        self.logit_scale = torch.nn.Parameter(torch.tensor(2.0))

    @rank_zero_only
    @torch.no_grad()
    def on_train_batch_start(self, batch, batch_idx):
        if self.scale_by_std and self.current_epoch == 0 and self.global_step == 0 and batch_idx == 0:
            print("### USING STD-RESCALING ###")
            z = self.encoder(batch["image"]).detach()
            del self.scale_factor
            self.register_buffer("scale_factor", 1.0 / z.flatten().std())
            print(f"setting self.scale_factor to {self.scale_factor}")

    @rank_zero_only
    def on_train_batch_end(self, outputs, batch, batch_idx):
        self.logit_scale.data.clamp_(0, 4.6052)

    def training_step(self, batch, batch_idx):
        z = self.encoder(batch["image"]) * self.scale_factor
        noise = torch.randn_like(z)
        return (self.unet(z + noise) - noise).pow(2).mean() * self.logit_scale.exp()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-4)


def main(encoder, unet, loader):
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="ddp", max_epochs=10)
    trainer.fit(LatentDiffusion(encoder, unet), loader)
