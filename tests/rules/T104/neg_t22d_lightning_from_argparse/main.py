# stagec fixture: t22d neg_lightning_from_argparse (look-alike of pos_t22d_lightning_from_argparse)
# named: on the command line (no config)
# runtime: one process as far as the code shows: Trainer.from_argparse_args with options the
#          code does not set to a multi-process strategy (accelerator="gpu" names a device kind)
# expect: none
# ----
import argparse
import os

from pytorch_lightning.trainer import Trainer


def run(trainer_config, model, data, ckptdir):
    trainer_config["accelerator"] = "gpu"
    trainer = Trainer.from_argparse_args(argparse.Namespace(**trainer_config))

    def melk(*args, **kwargs):
        if trainer.global_rank == 0:
            trainer.save_checkpoint(os.path.join(ckptdir, "last.ckpt"))

    try:
        trainer.fit(model, data)
    except Exception:
        melk()
        raise
