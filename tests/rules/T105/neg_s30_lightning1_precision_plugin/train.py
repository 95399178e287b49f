# stagec fixture: neg_s30_lightning1_precision_plugin (issue 22, class 9, the look-alike of
#   pos_s30_lightning1_ddp_plugin_val_list: the same data module, but the Trainer's only plugin is
#   a precision plugin and the device count comes from the command line)
# named: on the command line (`python train.py`: nothing in the code says how many processes run)
# runtime: not shown: `from_argparse_args` without a strategy or a per-device plugin
# expect: nothing (the number of processes is the command line's; one GPU runs one process)
# ----
import argparse

import pytorch_lightning as pl
from pytorch_lightning.plugins import NativeMixedPrecisionPlugin
from torch.utils.data import DataLoader


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--num_workers", type=int, default=4)
    parser.add_argument("--pin_memory", type=bool, default=True)
    parser = pl.Trainer.add_argparse_args(parser)
    return parser.parse_args()


class Scenes(pl.LightningDataModule):
    def __init__(self, args, train_set, val_sets):
        super().__init__()
        self.train_set = train_set
        self.val_sets = val_sets
        self.train_loader_params = {
            "batch_size": args.batch_size,
            "num_workers": args.num_workers,
            "pin_memory": args.pin_memory,
        }
        self.val_loader_params = {
            "batch_size": 1,
            "shuffle": False,
            "num_workers": args.num_workers,
            "pin_memory": args.pin_memory,
        }

    def train_dataloader(self):
        return DataLoader(self.train_set, shuffle=True, **self.train_loader_params)

    def val_dataloader(self):
        loaders = []
        for dataset in self.val_sets:
            loaders.append(DataLoader(dataset, **self.val_loader_params))
        return loaders


def main(model, train_set, val_sets):
    args = parse_args()
    data = Scenes(args, train_set, val_sets)
    trainer = pl.Trainer.from_argparse_args(args, plugins=[NativeMixedPrecisionPlugin(16, "cuda")])
    trainer.fit(model, datamodule=data)


if __name__ == "__main__":
    main(None, None, None)
