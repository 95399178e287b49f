# named: on the command line
# expect: nothing
import os

import torch


class AverageMeter(object):
    def __init__(self):
        self.sum = torch.zeros(())
        self.count = 0

    def update(self, value):
        self.sum += value
        self.count += 1


def mkdir(path):
    os.makedirs(path, exist_ok=True)
