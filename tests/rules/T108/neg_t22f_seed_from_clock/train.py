# stagec fixture: t22f_neg_seed_from_clock
# named: on the command line (`python train.py`)
# context: no experiment config; the seed is drawn from the clock on every run (and only
#          logged), so nothing here is meant to reproduce a run: benchmarking costs nothing.
# expect: none
# ----
import time

import torch
from torch import nn


def pick_seed() -> int:
    return int(time.time() * 1000) % (2**31)


def main() -> None:
    seed = pick_seed()
    print(f"seed {seed}")
    torch.manual_seed(seed)
    stamp = time.time_ns()
    torch.cuda.manual_seed_all(stamp % 1000)
    torch.backends.cudnn.benchmark = True
    model = nn.Conv2d(3, 3, 3).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(10):
        loss = model(torch.randn(2, 3, 16, 16, device="cuda")).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
