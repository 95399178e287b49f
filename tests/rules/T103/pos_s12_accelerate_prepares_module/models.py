from torch import nn


class Net(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.enc = nn.Linear(n, n)
        self.dec = nn.Linear(n, n)


def build_model(n):
    return Net(n)
