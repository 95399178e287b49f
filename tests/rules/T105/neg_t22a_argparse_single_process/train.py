# stagec fixture: t22a neg_argparse_single_process (issue 22, class 9)
# named: on the command line (no config: a single-GPU script)
# expect: none.
#   The same --workers default of 10, re-iterated every epoch, but nothing in the code runs it
#   once per rank (no process group, sampler, wrapper or launcher variable): one process, 10
#   workers, which T105 leaves alone.
# ----
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=90)
    args = parser.parse_args()
    data = TensorDataset(torch.randn(20000, 64), torch.randint(0, 10, (20000,)))
    loader = DataLoader(data, batch_size=128, shuffle=True, num_workers=args.workers)
    model = nn.Linear(64, 10).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
