# stagec fixture: pos_loader_iterated_through_star_import (issue 22, class 9: EfficientFormer's
#   shape)
# named: on the command line with util/__init__.py and util/engine.py
# runtime: multi-rank (init_process_group, DistributedSampler, DDP)
# expect:
#   T105 at 29:9 the training loader's 8 workers (argparse default): the epoch loop hands it to
#        `train_one_epoch`, which main.py has from `from util import *` (util/__init__.py
#        star-imports its engine), and which iterates it every epoch
# ----
import argparse

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from util import *


def main(args):
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(4096, 16), torch.randn(4096, 1))
    sampler = DistributedSampler(data)
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(
        data,
        sampler=sampler,
        num_workers=args.num_workers,
        batch_size=64,
    )
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        train_one_epoch(model, loader, opt)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_workers", default=8, type=int)
    parser.add_argument("--epochs", default=100, type=int)
    main(parser.parse_args())
