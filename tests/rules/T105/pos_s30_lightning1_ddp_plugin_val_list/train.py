# stagec fixture: pos_s30_lightning1_ddp_plugin_val_list (issue 22, class 9: LoFTR's Lightning 1.x
#   script: `Trainer.from_argparse_args(args, plugins=DDPPlugin(…))` runs one process per GPU,
#   and the data module's validation hook returns a list of loaders its loop made; Lightning
#   adds the distributed samplers itself)
# named: on the command line (`python train.py --gpus 8`: Lightning starts the processes)
# runtime: multi-rank: the DDPPlugin
# expect:
#   T105 at 47:59 the training loader (its count from the argparse default 4, through the
#        `**self.train_loader_params` dict the module keeps): iterated every epoch
#   T105 at 52:50 each validation set's loader, appended in a loop to the list val_dataloader()
#        returns: Lightning passes over each at every validation run
# ----
import argparse

import pytorch_lightning as pl
from pytorch_lightning.plugins import DDPPlugin
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
    trainer = pl.Trainer.from_argparse_args(args, plugins=DDPPlugin(find_unused_parameters=False))
    trainer.fit(model, datamodule=data)


if __name__ == "__main__":
    main(None, None, None)
