import torch


class Prefetcher:
    def __init__(self, loader, num_workers=2):
        self.loader = loader
        self.num_workers = num_workers

    def __iter__(self):
        return iter(self.loader)


def to_device(x):
    return x.to(torch.device("cuda"), non_blocking=True)
