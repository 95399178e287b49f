# stagec fixture: t22f_neg_benchmark_flag
# named: on the command line (`python train.py --seed 1 --benchmark`)
# context: no experiment config; the script seeds torch, and turns benchmarking on only when
#          the user asks for speed (`--benchmark`, or without `--deterministic`): a trade-off
#          the user chose, not a hazard.
# expect: none
# ----
import argparse

import torch
from torch import nn


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--benchmark", action="store_true")
    p.add_argument("--deterministic", action="store_true")
    args = p.parse_args()

    torch.manual_seed(args.seed)
    if args.benchmark:
        torch.backends.cudnn.benchmark = True
    if not args.deterministic:
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
