# stagec fixture: neg_s21_loaders_listed_told_the_epoch (the trainer)
# named: beside the other files, as pre-commit passes them
# expect: nothing in this file
# ----
from base_trainer import BaseTrainer


class LTRTrainer(BaseTrainer):
    def train_epoch(self):
        for loader in self.loaders:
            loader.sampler.set_epoch(self.epoch)
            for x, y in loader:
                loss = self.net(x.cuda()).sub(y.cuda()).pow(2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
