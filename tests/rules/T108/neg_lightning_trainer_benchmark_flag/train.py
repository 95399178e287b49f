# stagec fixture: neg_lightning_trainer_benchmark_flag (look-alike of pos_lightning_trainer_benchmark)
# named: on the command line (a Lightning script, no config)
# runtime: Lightning Trainer on 8 devices with DDP
# expect: none: benchmarking is the user's flag (`benchmark=args.benchmark`), and the Trainer that
#   asks for determinism turns benchmarking off (`benchmark=False`)
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


def main(args):
    L.seed_everything(42)
    trainer = L.Trainer(devices=8, benchmark=args.benchmark, strategy="ddp", max_epochs=10)
    trainer.fit(Net())


def strict():
    trainer = L.Trainer(devices=8, benchmark=False, deterministic=True, max_epochs=10)
    trainer.fit(Net())


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--benchmark", action="store_true")
    strict()
    main(parser.parse_args())
