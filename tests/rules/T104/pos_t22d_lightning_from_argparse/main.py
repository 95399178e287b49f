# stagec fixture: t22d pos_lightning_from_argparse (issue 22, class 2; the shape of review marks
#   M10 and M11 as CompVis/stable-diffusion writes them)
# named: on the command line (no config)
# runtime: multi-rank: the Trainer comes from Trainer.from_argparse_args with the trainer
#          options' accelerator set to "ddp" (the older Lightning spelling of the strategy)
# expect:
#   T104 at 24:13 trainer.save_checkpoint() under `trainer.global_rank == 0` in a Callback hook.
#   T104 at 36:13 the same in the handler that saves a last checkpoint on SIGUSR1 or a crash.
# ----
import argparse
import os
import signal

from pytorch_lightning.callbacks import Callback
from pytorch_lightning.trainer import Trainer


class SetupCallback(Callback):
    def __init__(self, ckptdir):
        self.ckptdir = ckptdir

    def on_keyboard_interrupt(self, trainer, pl_module):
        if trainer.global_rank == 0:
            trainer.save_checkpoint(os.path.join(self.ckptdir, "last.ckpt"))


def run(opt, trainer_config, model, data, ckptdir):
    trainer_config["accelerator"] = "ddp"
    if "gpus" not in trainer_config:
        del trainer_config["accelerator"]
    trainer_opt = argparse.Namespace(**trainer_config)
    trainer = Trainer.from_argparse_args(trainer_opt, callbacks=[SetupCallback(ckptdir)])

    def melk(*args, **kwargs):
        if trainer.global_rank == 0:
            trainer.save_checkpoint(os.path.join(ckptdir, "last.ckpt"))

    signal.signal(signal.SIGUSR1, melk)
    try:
        trainer.fit(model, data)
    except Exception:
        melk()
        raise
