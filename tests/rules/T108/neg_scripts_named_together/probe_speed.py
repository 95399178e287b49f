# stagec fixture: h05_neg_scripts_named_together
# named: on the command line, with pretrain.py
# context: no experiment config in the folder; this script times convolutions and asks for no
#          determinism.
# expect: no finding.
#   Not T108 at cudnn.benchmark = True: the determinism request is in pretrain.py, another
#   program (neither file imports the other).
# ----
import time

import torch
from torch import nn

torch.backends.cudnn.benchmark = True


def time_conv(channels: int = 64, size: int = 56, reps: int = 20) -> float:
    conv = nn.Conv2d(channels, channels, 3, padding=1)
    x = torch.randn(8, channels, size, size)
    start = time.perf_counter()
    for _ in range(reps):
        conv(x)
    return (time.perf_counter() - start) / reps


if __name__ == "__main__":
    print(f"{time_conv() * 1e3:.2f} ms per call")
