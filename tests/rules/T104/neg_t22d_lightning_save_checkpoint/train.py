# stagec fixture: t22d neg_lightning_save_checkpoint (look-alike of pos_t22d_lightning_save_checkpoint)
# named: on the command line (no config)
# runtime: multi-rank: pl.Trainer(strategy="ddp", devices=8)
# expect: none: save_checkpoint on every rank (Lightning writes from rank 0 itself); rank 0 only
#         writes its own files (torch.save, a JSON note); `self.trainer` of a class that is not a
#         LightningModule and a `trainer` parameter of a plain helper are not Lightning's Trainer
# ----
import json
import os

import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import Callback


class SnapshotOnInterrupt(Callback):
    def __init__(self, ckptdir):
        super().__init__()
        self.ckptdir = ckptdir

    def on_exception(self, trainer, pl_module, exception):
        trainer.save_checkpoint(os.path.join(self.ckptdir, "last.ckpt"))
        if trainer.global_rank == 0:
            torch.save(pl_module.state_dict(), os.path.join(self.ckptdir, "weights.pt"))
            with open(os.path.join(self.ckptdir, "note.json"), "w") as f:
                json.dump({"epoch": trainer.current_epoch}, f)


class Exporter:
    def __init__(self, trainer, rank):
        self.trainer = trainer
        self.rank = rank

    def export(self, path):
        if self.rank == 0:
            self.trainer.save_checkpoint(path)


def export_weights(trainer, rank, path):
    if rank == 0:
        trainer.save_checkpoint(path)


def main(model, data, ckptdir, rank):
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="ddp", callbacks=[SnapshotOnInterrupt(ckptdir)])
    trainer.fit(model, data)
    trainer.save_checkpoint(os.path.join(ckptdir, "final.ckpt"))
