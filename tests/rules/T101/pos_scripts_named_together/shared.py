# stagec fixture: h01_pos_scripts_named_together
# context: imported by train_ddp.py and by calibrate.py (not named on the command line).
# expect: no finding.
# ----
import torch
from torch.utils.data import TensorDataset


def toy(n: int = 4096) -> TensorDataset:
    x = torch.randn(n, 8)
    return TensorDataset(x, (x[:, 0] > 0).long())
