import torch


class MultiOptimizer:
    def __init__(self, optimizers):
        self.optimizers = optimizers

    def step(self, key=None):
        for o in self.optimizers.values():
            o.step()


def build_optimizer(params):
    optimizers = {k: torch.optim.AdamW(p) for k, p in params.items()}
    return MultiOptimizer(optimizers)
