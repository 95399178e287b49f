# stagec fixture: t22a pos_argparse_workers (issue 22, classes 1 and 9)
# named: on the command line with dist_utils.py and logging_utils.py (no config: a torchrun script)
# runtime: multi-rank: dist_utils.setup() initialises the process group (a helper module), and
#          the file builds a DistributedSampler and a DDP model
# expect:
#   T105 at 39:9 num_workers is --workers' default 10: 10 workers per rank × the local ranks of
#        a node, stopped after each epoch's pass (the loader is iterated through
#        StepLogger.track, a method of an instance) and started again at the next one.
#        Fix: persistent_workers=True after the argument (39:33).
# ----
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

import dist_utils
from logging_utils import StepLogger


def one_epoch(model, opt, loader):
    log = StepLogger(every=100)
    for x, y in log.track(loader, header="train"):
        loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=90)
    args = parser.parse_args()
    dist_utils.setup(args)
    data = TensorDataset(torch.randn(20000, 64), torch.randint(0, 10, (20000,)))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=128, sampler=sampler,
        num_workers=args.workers, pin_memory=True)
    model = nn.parallel.DistributedDataParallel(nn.Linear(64, 10).cuda(), device_ids=[args.local])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        one_epoch(model, opt, loader)


if __name__ == "__main__":
    main()
