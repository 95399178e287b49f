# stagec fixture: s26 pos_abstract_step_one_override (issue 22, class 2; FullSubNet's
#                 audio_zen/trainer/base_trainer.py: the base trainer's epoch loop calls the
#                 abstract `self._train_epoch(epoch)`, which the recipe's one trainer implements
#                 with a DDP backward; `--only_validation` sends rank 0 past it with `continue`)
# named: on the command line, with trainer.py
# expect:
#   T104 at 25:17 the `continue` only rank 0 takes, past the DDP backward the other ranks run
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
