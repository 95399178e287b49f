# named: on the command line, with utils.py
# ----
import torch.nn.functional as F
from torch import nn


class SineGen(nn.Module):
    def forward(self, f0, upp):
        return F.interpolate(f0.transpose(1, 2), scale_factor=float(upp), mode="linear", align_corners=True)
