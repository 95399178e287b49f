# stagec fixture: s31 neg_lightning_cli_trainer_code_for_one_device (issue 22, class 9; the
#   look-alike of pos_s31_lightning_cli_trainer_code_written_for_ranks whose module runs no
#   collective and asks nothing of the Trainer's plugin: the command line may run it on one device)
# named: on the command line (`python pretrain.py --gpus 1`)
# expect: none in this file
# ----
from argparse import ArgumentParser

import torch
from pytorch_lightning import LightningModule, Trainer

from data_module import DataModule


class Pretrainer(LightningModule):
    def __init__(self, **kwargs):
        super().__init__()
        self.proj = torch.nn.Linear(16, 16)

    def sinkhorn(self, scores):
        q = torch.exp(scores).t()
        sum_q = torch.sum(q)
        return q / sum_q

    def training_step(self, batch, batch_idx):
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
