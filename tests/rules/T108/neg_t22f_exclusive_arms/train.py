# stagec fixture: t22f_neg_exclusive_arms
# named: on the command line (`python train.py --seed 5`)
# context: no experiment config; with a seed the script seeds torch, without one it turns
#          benchmarking on instead: the two never hold in one run.
# expect: none
# ----
import argparse
import random

import torch
from torch import nn


def set_all_seeds(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args()

    if args.seed is not None:
        set_all_seeds(args.seed)
    else:
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
