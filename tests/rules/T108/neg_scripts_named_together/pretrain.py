# stagec fixture: h05_neg_scripts_named_together
# named: on the command line, with probe_speed.py (as pre-commit passes the changed files)
# context: no experiment config in the folder: both files are checked on their own; neither
#          imports the other, so each is a program of its own.
# runtime: single process.
# expect: no finding.
# ----
import argparse

import torch
import torch.backends.cudnn as cudnn
from torch import nn


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--steps", type=int, default=100)
    return p.parse_args()


def main() -> None:
    args = parse()
    if args.seed is not None:
        torch.manual_seed(args.seed)
        cudnn.deterministic = True
    net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 8, 3))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(args.steps):
        loss = net(torch.randn(4, 3, 32, 32)).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
