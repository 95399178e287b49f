# stagec fixture: neg_s21_loaders_listed_told_the_epoch (the trainer template)
# named: beside the other files, as pre-commit passes them
# expect: nothing in this file
# ----
class BaseTrainer:
    def __init__(self, net, loaders, optimizer):
        self.net = net
        self.loaders = loaders
        self.optimizer = optimizer
        self.epoch = 0

    def train(self, max_epochs):
        for epoch in range(self.epoch + 1, max_epochs + 1):
            self.epoch = epoch
            self.train_epoch()

    def train_epoch(self):
        raise NotImplementedError
