# stagec fixture: t22f_pos_seed_everything
# named: on the command line (`python fit.py`)
# context: no experiment config; a Lightning script seeds with seed_everything(42) and
#          turns benchmarking on by hand.
# expect:
#   T108 at 37:1 cudnn.benchmark = True in code that seeds torch with seed_everything
#        (line 35).
# ----
import pytorch_lightning as pl
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class ConvNet(pl.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))

    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def loaders() -> DataLoader:
    data = TensorDataset(torch.randn(256, 1, 28, 28), torch.randint(0, 10, (256,)))
    return DataLoader(data, batch_size=32, shuffle=True)


SEED = 42

pl.seed_everything(SEED, workers=True)

torch.backends.cudnn.benchmark = True

trainer = pl.Trainer(max_epochs=3, accelerator="gpu", devices=1)
trainer.fit(ConvNet(), loaders())
