# stagec fixture: s33 neg_namespace_count_zeroed_for_debug (issue 22, class 9: the shape of review
#                 40b's AdaFace, but a debug flag sets the parsed worker count to 0; whether that store
#                 runs before the loaders are built cannot be told, so the count is not known)
# named: on the command line (`python train.py`, a Lightning DDP Trainer on 2 GPUs)
# expect: nothing
# ----
import argparse

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader


class dotdict(dict):
    __getattr__ = dict.get
    __setattr__ = dict.__setitem__


class DataModule(pl.LightningDataModule):
    def __init__(self, **kwargs):
        super().__init__()
        self.batch_size = kwargs["batch_size"]
        self.num_workers = kwargs["num_workers"]

    def setup(self, stage=None):
        self.train_dataset = torch.utils.data.TensorDataset(torch.randn(1024, 8))

    def train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=self.batch_size, num_workers=self.num_workers, shuffle=True)


def main(args):
    hparams = dotdict(vars(args))
    data_mod = DataModule(**hparams)
    model = pl.LightningModule()
    trainer = pl.Trainer(gpus=hparams.gpus, strategy=hparams.distributed_backend, max_epochs=hparams.epochs)
    trainer.fit(model, datamodule=data_mod)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_workers", default=16, type=int)
    parser.add_argument("--batch_size", default=256, type=int)
    parser.add_argument("--gpus", default=2, type=int)
    parser.add_argument("--distributed_backend", default="ddp", type=str)
    parser.add_argument("--epochs", default=24, type=int)
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args()
    if args.distributed_backend == "ddp" and args.gpus > 0:
        args.batch_size = int(args.batch_size / max(1, args.gpus))
        args.num_workers = min(args.num_workers, 16)
    if args.debug:
        args.num_workers = 0
    main(args)
