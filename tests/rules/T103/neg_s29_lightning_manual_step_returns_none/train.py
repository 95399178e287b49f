# stagec fixture: neg_s29_lightning_manual_step_returns_none (look-alike of
#   pos_s29_lightning_step_returns_none)
# named: on the command line (a Lightning script, no config)
# runtime: multi-rank (Trainer with strategy="ddp" on 8 devices)
# expect: nothing:
#   - `Gan` optimizes by hand (automatic_optimization = False): a skipped batch returns before
#     any backward, and its None skips nothing Lightning would run;
#   - `Folding.validation_step`'s handler is in no training step;
#   - `Folding.training_step` returns None only on a batch flag every rank shares
# ----
import pytorch_lightning as pl
import torch


class Gan(pl.LightningModule):
    def __init__(self, g, d):
        super().__init__()
        self.g = g
        self.d = d
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        opt_g, opt_d = self.optimizers()
        try:
            loss_g = self.g(batch).mean()
        except RuntimeError:
            return None
        opt_g.zero_grad()
        self.manual_backward(loss_g)
        opt_g.step()
        return loss_g

    def configure_optimizers(self):
        return torch.optim.Adam(self.g.parameters()), torch.optim.Adam(self.d.parameters())


class Folding(pl.LightningModule):
    def __init__(self, net, warmup_steps):
        super().__init__()
        self.net = net
        self.warmup_steps = warmup_steps

    def training_step(self, batch, batch_idx):
        if self.global_step < self.warmup_steps:
            return None
        return self.net(batch).mean()

    def validation_step(self, batch, batch_idx):
        try:
            self.log("val/loss", self.net(batch).mean())
        except Exception:
            return None

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-4)


def main():
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="ddp", max_epochs=10)
    trainer.fit(Gan(torch.nn.Linear(4, 4), torch.nn.Linear(4, 1)))
    trainer.fit(Folding(torch.nn.Linear(4, 4), 100))


if __name__ == "__main__":
    main()
