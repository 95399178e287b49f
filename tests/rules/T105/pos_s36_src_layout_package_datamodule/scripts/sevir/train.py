# stagec fixture: pos_s36_src_layout_package_datamodule
# named: on the command line with src/forecast/data/sevir.py
# expect: nothing
# ----
import argparse

import torch
from lightning import LightningModule, Trainer
from lightning.pytorch.strategies import DDPStrategy

from forecast.data.sevir import SevirDataModule


class Nowcaster(LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Conv3d(1, 1, 3, padding=1)

    def training_step(self, batch, batch_idx):
        x = batch.transpose(1, 2)
        return torch.nn.functional.mse_loss(self.net(x[:, :, :-1]), x[:, :, 1:])

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-4)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, default=8)
    args = parser.parse_args()
    dm = SevirDataModule(seq_len=25, batch_size=2, num_workers=8)
    trainer = Trainer(accelerator="gpu", devices=args.gpus, strategy=DDPStrategy(), max_epochs=100)
    trainer.fit(Nowcaster(), datamodule=dm)


if __name__ == "__main__":
    main()
