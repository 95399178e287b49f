# stagec fixture: s32 neg_kwargs_entry_stored_to_wrapper (issue 22, class 9; the look-alike of
#                 pos_kwargs_entry_of_splatted_namespace: the worker count comes through `**kwargs` from a
#                 `dotdict` of the parsed arguments, but the script stores to that entry first)
# named: on the command line (`python train.py`, a Lightning DDP Trainer on 2 GPUs)
# expect:
#   nothing: `hparams.num_workers = 0` under --debug changes the entry; the count is not one value
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
    if hparams.debug:
        hparams.num_workers = 0
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
    main(args)
