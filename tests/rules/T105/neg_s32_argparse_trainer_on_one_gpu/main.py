# stagec fixture: s32 neg_argparse_trainer_on_one_gpu (issue 22, class 9; the look-alike of pos_argparse_trainer_on_every_gpu: the
#                 Trainer comes from `Trainer.from_argparse_args(args)` and the parser's --devices
#                 default is 1: one process, no ranks)
# named: on the command line (`python main.py`)
# expect:
#   nothing: one device by default, one process; its workers restarting costs no other rank
# ----
from argparse import ArgumentParser

import pytorch_lightning as pl
import torch
from pytorch_lightning import Trainer
from torch.utils.data import DataLoader


class DInterface(pl.LightningDataModule):
    def __init__(self, num_workers=8, batch_size=8, **kwargs):
        super().__init__()
        self.num_workers = num_workers
        self.batch_size = batch_size
        self.trainset = torch.utils.data.TensorDataset(torch.randn(1024, 8))

    def train_dataloader(self):
        return DataLoader(self.trainset, batch_size=self.batch_size, num_workers=self.num_workers, shuffle=True)


def main(args):
    model = pl.LightningModule()
    data_module = DInterface(**vars(args))
    trainer = Trainer.from_argparse_args(args)
    trainer.fit(model=model, datamodule=data_module)


if __name__ == "__main__":
    parser = ArgumentParser()
    parser.add_argument("--accelerator", default="gpu", type=str)
    parser.add_argument("--devices", default=1, type=int)
    parser.add_argument("--batch_size", default=8, type=int)
    parser.add_argument("--num_workers", default=8, type=int)
    parser.add_argument("--max_epochs", default=5, type=int)
    args = parser.parse_args()
    main(args)
