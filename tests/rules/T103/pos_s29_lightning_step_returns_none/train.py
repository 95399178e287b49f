# stagec fixture: pos_s29_lightning_step_returns_none (issue 22, class 6; a structure model's
#   `training_step` that skips a batch whose loss cannot be computed, and one whose loss is NaN,
#   by returning None; the Trainer runs DDP when more than one device is configured; the module
#   keeps automatic optimization on, `self.automatic_optimization = True`)
# named: on the command line (a Lightning script, no config)
# runtime: multi-rank (Trainer with a DDPStrategy when devices > 1)
# expect:
#   T103 at 30:9 this handler swallows Exception and returns None from `training_step` …
#   T103 at 34:9 … `loss` is this rank's own loss … returns None from `training_step` …
# ----
import argparse

import pytorch_lightning as pl
import torch
from pytorch_lightning.strategies import DDPStrategy


class Folding(pl.LightningModule):
    def __init__(self, net, structure):
        super().__init__()
        self.net = net
        self.structure = structure
        self.automatic_optimization = True

    def training_step(self, batch, batch_idx):
        out = self.net(batch["feats"])
        disto = out["disto"].mean()
        try:
            diffusion = self.structure.compute_loss(batch, out)
        except Exception as e:
            print(f"Skipping batch {batch_idx} due to error: {e}")
            return None
        loss = disto + diffusion["loss"]
        if torch.isnan(loss):
            return None
        self.log("train/loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-4)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=8)
    args = parser.parse_args()
    strategy = "auto"
    if args.devices > 1:
        strategy = DDPStrategy(find_unused_parameters=True)
    trainer = pl.Trainer(accelerator="gpu", devices=args.devices, strategy=strategy, max_epochs=10)
    trainer.fit(Folding(torch.nn.Linear(4, 4), None))


if __name__ == "__main__":
    main()
