# stagec fixture: neg_s29_lightning_step_returns_none_one_device (look-alike of
#   pos_s29_lightning_step_returns_none)
# named: on the command line (a Lightning script, no config)
# runtime: one process (a Trainer on one device)
# expect: nothing:
#   - `Folding` is trained by a Trainer on one device: one rank, nothing to wait for;
#   - the handler in `Folding.validation_step` is in no training step
# ----
import pytorch_lightning as pl
import torch


class Folding(pl.LightningModule):
    def __init__(self, net, structure):
        super().__init__()
        self.net = net
        self.structure = structure

    def training_step(self, batch, batch_idx):
        out = self.net(batch["feats"])
        try:
            loss = self.structure.compute_loss(batch, out)["loss"]
        except Exception as e:
            print(f"Skipping batch {batch_idx} due to error: {e}")
            return None
        return loss

    def validation_step(self, batch, batch_idx):
        try:
            self.log("val/loss", self.structure.compute_loss(batch, self.net(batch["feats"]))["loss"])
        except Exception:
            return None

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-4)


def main():
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=10)
    trainer.fit(Folding(torch.nn.Linear(4, 4), None))


if __name__ == "__main__":
    main()
