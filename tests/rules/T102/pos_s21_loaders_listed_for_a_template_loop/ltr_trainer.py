# stagec fixture: pos_s21_loaders_listed_for_a_template_loop (the trainer)
# named: beside the other files, as pre-commit passes them
# expect: nothing in this file
# ----
from base_trainer import BaseTrainer


class LTRTrainer(BaseTrainer):
    def train_epoch(self):
        for loader in self.loaders:
            for x, y in loader:
                loss = self.net(x.cuda()).sub(y.cuda()).pow(2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
