# stagec fixture: t22f_pos_seed_helper_one_call_away
# named: on the command line (`python pretrain.py --seed 31`)
# context: no experiment config; the seeds are set by a helper of the project's own
#          (`fix_seeds(args.seed)` in utils.py), then benchmarking is turned on.
# expect:
#   T108 at 29:5 cudnn.benchmark = True in code that seeds torch (utils.py, through
#        fix_seeds): two runs with the same seed can pick different convolution algorithms.
# ----
import argparse

import torch
from torch import nn

from utils import fix_seeds


def get_args() -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=31)
    p.add_argument("--steps", type=int, default=100)
    return p.parse_args()


def train(args: argparse.Namespace) -> None:
    fix_seeds(args.seed)
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Flatten()).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

    torch.backends.cudnn.benchmark = True
    for _ in range(args.steps):
        x = torch.randn(4, 3, 64, 64, device="cuda")
        loss = model(x).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    train(get_args())
