# stagec fixture: t22d neg_lightning_single_device (look-alike of pos_t22d_lightning_save_checkpoint)
# named: on the command line (no config)
# runtime: one process: pl.Trainer(devices=1), no multi-process strategy
# expect: none (one process: the barrier has nobody to wait for)
# ----
import os

import pytorch_lightning as pl


def main(model, data, ckptdir):
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=5)

    def melk(*args, **kwargs):
        if trainer.global_rank == 0:
            trainer.save_checkpoint(os.path.join(ckptdir, "last.ckpt"))

    try:
        trainer.fit(model, data)
    except Exception:
        melk()
        raise
