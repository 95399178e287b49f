# stagec fixture: t22f_neg_numpy_only_seeding
# named: on the command line (`python train.py`)
# context: no experiment config; only numpy and random are seeded (for the data
#          augmentation's draws), torch is not: nothing asks torch for reproducible runs.
# expect: none
# ----
import random

import numpy as np
import torch
from torch import nn


def main() -> None:
    random.seed(0)
    np.random.seed(0)
    torch.backends.cudnn.benchmark = True
    model = nn.Conv2d(3, 3, 3).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(10):
        flip = np.random.rand() < 0.5
        x = torch.randn(2, 3, 16, 16, device="cuda")
        loss = model(x.flip(-1) if flip else x).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
