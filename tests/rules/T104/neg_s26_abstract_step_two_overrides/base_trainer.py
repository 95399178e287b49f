# stagec fixture: s26 neg_abstract_step_two_overrides (issue 22, class 2; the look-alike of
#                 pos_s26_abstract_step_one_override: two trainers implement the abstract step,
#                 one of them with no collective, so which one runs is not known here)
# named: on the command line, with trainer.py
# expect: nothing
# ----
import torch


class BaseTrainer:
    def __init__(self, rank, model, optimizer, epochs, only_validation=False):
        self.rank = rank
        self.model = model
        self.optimizer = optimizer
        self.epochs = epochs
        self.only_validation = only_validation

    def train(self):
        for epoch in range(1, self.epochs + 1):
            if self.only_validation and self.rank == 0:
                self.model.eval()
                print(self._validation_epoch(epoch))
                continue
            self.model.train()
            self._train_epoch(epoch)

    def _train_epoch(self, epoch):
        raise NotImplementedError

    def _validation_epoch(self, epoch):
        with torch.no_grad():
            return self.model.module(torch.randn(4, 8)).mean().item()
