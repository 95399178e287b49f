# stagec fixture: s31 pos_lightning_cli_trainer_code_written_for_ranks (issue 22, class 9; MGCA's
#   medical image-text pre-training: the Trainer takes its devices and strategy from the command
#   line, and the module is written for DDP: it all-reduces its Sinkhorn sums itself and asks
#   whether the Trainer's plugin is DDP's)
# named: on the command line (`python pretrain.py --gpus 2 --strategy ddp`)
# expect: none in this file
# ----
from argparse import ArgumentParser

import torch
import torch.distributed as dist
from pytorch_lightning import LightningModule, Trainer
from pytorch_lightning.plugins import DDP2Plugin, DDPPlugin

from data_module import DataModule


class Pretrainer(LightningModule):
    def __init__(self, **kwargs):
        super().__init__()
        self.proj = torch.nn.Linear(16, 16)

    def sinkhorn(self, scores):
        q = torch.exp(scores).t()
        sum_q = torch.sum(q)
        if self.use_ddp:
            dist.all_reduce(sum_q)
        return q / sum_q

    def training_step(self, batch, batch_idx):
        self.use_ddp = isinstance(self.trainer.training_type_plugin, (DDPPlugin, DDP2Plugin))
        return self.sinkhorn(self.proj(batch[0])).sum()

    def validation_step(self, batch, batch_idx):
        self.log("val_loss", self.proj(batch[0]).sum(), sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-4)

    @staticmethod
    def add_model_specific_args(parent_parser):
        parser = ArgumentParser(parents=[parent_parser], add_help=False)
        parser.add_argument("--num_workers", type=int, default=16)
        parser.add_argument("--batch_size", type=int, default=72)
        return parser


def cli_main():
    parser = ArgumentParser()
    parser = Trainer.add_argparse_args(parser)
    parser = Pretrainer.add_model_specific_args(parser)
    args = parser.parse_args()
    data = DataModule(torch.utils.data.TensorDataset(torch.randn(4096, 16)), args.batch_size, args.num_workers)
    model = Pretrainer(**args.__dict__)
    trainer = Trainer.from_argparse_args(args=args)
    trainer.fit(model, datamodule=data)


if __name__ == "__main__":
    cli_main()
