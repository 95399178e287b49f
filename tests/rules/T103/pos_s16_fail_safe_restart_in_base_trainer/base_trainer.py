# stagec fixture: pos_s16_fail_safe_restart_in_base_trainer (the base trainer)
# named: on the command line with ltr_trainer.py and train.py
# context: pytracking's BaseTrainer (also OSTrack's, STARK's): `train()` runs the epochs inside
#          a bare `except:` that, with `fail_safe` on (its default, which the caller keeps),
#          prints the traceback and goes on instead of re-raising. The epoch's work is
#          `self.train_epoch()`, abstract here; the trainer the run builds implements it with
#          the DDP backward.
# expect:
#   T103 at 38:13 a rank whose epoch raises leaves train() while the others wait in the
#        gradient all-reduce of their next step
# ----
import traceback


class BaseTrainer:
    def __init__(self, actor, loaders, optimizer, settings, lr_scheduler=None):
        self.actor = actor
        self.loaders = loaders
        self.optimizer = optimizer
        self.settings = settings
        self.lr_scheduler = lr_scheduler
        self.epoch = 0

    def train(self, max_epochs, load_latest=False, fail_safe=True):
        epoch = -1
        num_tries = 1
        for i in range(num_tries):
            try:
                if load_latest:
                    self.load_checkpoint()
                for epoch in range(self.epoch + 1, max_epochs + 1):
                    self.epoch = epoch
                    self.train_epoch()
                    if self.lr_scheduler is not None:
                        self.lr_scheduler.step()
                    if self.settings.local_rank in [-1, 0]:
                        self.save_checkpoint()
            except:
                print("Training crashed at epoch {}".format(epoch))
                if fail_safe:
                    self.epoch -= 1
                    load_latest = True
                    print(traceback.format_exc())
                    print("Restarting training from last epoch ...")
                else:
                    raise
        print("Finished training!")

    def train_epoch(self):
        raise NotImplementedError

    def load_checkpoint(self):
        pass

    def save_checkpoint(self):
        pass
