# stagec fixture: neg_ddp_forward_on_rank_zero_safe (a model file with no batch norm, no buffers)
# named: on the command line with train.py
# expect: none in this file
# ----
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 1)

    def forward(self, x):
        return self.fc(x)
