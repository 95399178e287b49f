from munch import Munch
from torch import nn


def build_model(n):
    nets = Munch(enc=nn.Linear(n, n), dec=nn.Linear(n, n))
    return nets
