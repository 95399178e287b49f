# stagec fixture: t22d pos_lightning_save_checkpoint (issue 22, class 2; review marks M10, M11)
# named: on the command line (no config: `python train.py` starts Lightning's 8 processes itself)
# runtime: multi-rank: pl.Trainer(strategy="ddp", devices=8) runs one process per GPU
# expect:
#   T104 at 27:13 trainer.save_checkpoint() ends in the strategy's barrier (and saves shards on
#        every rank under DeepSpeed or FSDP): a Callback hook calls it on global rank 0 only.
#   T104 at 37:13 the same in LightningModule code, through self.trainer under is_global_zero.
#   T104 at 48:13 the same in a signal/exception handler closing over the Trainer.
# ----
import os
import signal

import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import Callback
from torch import nn


class SnapshotOnInterrupt(Callback):
    def __init__(self, ckptdir):
        super().__init__()
        self.ckptdir = ckptdir

    def on_exception(self, trainer, pl_module, exception):
        if trainer.global_rank == 0:
            print("saving a last checkpoint")
            trainer.save_checkpoint(os.path.join(self.ckptdir, "last.ckpt"))


class Model(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(16, 1)

    def on_train_epoch_end(self):
        if self.trainer.is_global_zero and self.current_epoch % 10 == 0:
            self.trainer.save_checkpoint(f"epoch{self.current_epoch}.ckpt")

    def training_step(self, batch, batch_idx):
        return self.net(batch).pow(2).mean()


def main(data, ckptdir):
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="ddp", callbacks=[SnapshotOnInterrupt(ckptdir)])

    def melk(*args, **kwargs):
        if trainer.global_rank == 0:
            trainer.save_checkpoint(os.path.join(ckptdir, "last.ckpt"))

    signal.signal(signal.SIGUSR1, melk)
    try:
        trainer.fit(Model(), data)
    except Exception:
        melk()
        raise
    torch.cuda.synchronize()
