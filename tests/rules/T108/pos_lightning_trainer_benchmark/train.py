# stagec fixture: pos_lightning_trainer_benchmark (issue 22, class 7: Lightning's spelling)
# named: on the command line (a Lightning script, no config)
# runtime: Lightning Trainer on 8 devices with DDP
# expect:
#   T108 at 28:36 `Trainer(benchmark=True)` sets cudnn.benchmark in a script that calls
#        `seed_everything(42)` for reproducibility
#   T108 at 33:36 `Trainer(benchmark=True, deterministic=True)` asks for both at once
# ----
import lightning as L
import torch
from torch import nn


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def training_step(self, batch, i):
        return self.conv(batch[0]).mean()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def main():
    L.seed_everything(42)
    trainer = L.Trainer(devices=8, benchmark=True, strategy="ddp", max_epochs=10)
    trainer.fit(Net())


def strict():
    trainer = L.Trainer(devices=8, benchmark=True, deterministic=True, max_epochs=10)
    trainer.fit(Net())


if __name__ == "__main__":
    main()
    strict()
