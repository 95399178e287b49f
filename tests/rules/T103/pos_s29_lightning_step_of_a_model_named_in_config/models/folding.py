# the model module of pos_s29_lightning_step_of_a_model_named_in_config (no script imports it)
# named: on the command line, beside train.py
# expect:
#   T103 at 17:9 `loss` is this rank's own loss, and a non-finite one returns None from `training_step` …
# ----
import pytorch_lightning as pl
import torch


class Folding(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        loss = self.net(batch).pow(2).mean()
        if not torch.isfinite(loss):
            return None
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-4)
