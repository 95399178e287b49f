# stagec fixture: pos_s16_fail_safe_restart_in_base_trainer (the trainer)
# named: on the command line with base_trainer.py and train.py
# expect: none in this file
# ----
import torch

from base_trainer import BaseTrainer


class LTRTrainer(BaseTrainer):
    def train_epoch(self):
        for loader in self.loaders:
            self.actor.train(loader.training)
            for data in loader:
                loss = self.actor(data)
                if loader.training:
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
