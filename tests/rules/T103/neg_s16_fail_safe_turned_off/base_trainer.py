# stagec fixture: neg_s16_fail_safe_turned_off (the base trainer)
# named: on the command line with ltr_trainer.py and train.py
# context: pos_s16_fail_safe_restart_in_base_trainer's base trainer, but the script turns
#          `fail_safe` off: the handler re-raises, and the rank's error ends the job.
# expect: none
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
