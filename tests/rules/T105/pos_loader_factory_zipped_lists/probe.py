# stagec fixture: pos_loader_factory_zipped_lists (a second caller, passing 0 for one loader)
# named: on the command line with data/__init__.py and train.py
# expect: none in this file
# ----
import torch
from torch.utils.data import TensorDataset

from data import create_loader


def probe():
    sets = [TensorDataset(torch.randn(64, 16)), TensorDataset(torch.randn(64, 16))]
    first, second = create_loader(sets, [None, None], batch_size=[8, 8], num_workers=[2, 0], is_trains=[False, False])
    return first, second
