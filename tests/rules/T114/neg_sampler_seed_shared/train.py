# stagec fixture: neg_sampler_seed_shared (issue 22, class 3 traps: "DistributedSampler's shared
#   seed"; samplers whose seed is the same on every rank, beside per-rank seeds for augmentation)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler)
# context: the seed is drawn only after `random.seed(args.seed)` has seeded every rank alike; the
#          augmentation seed adds the rank but the samplers get the run's seed; a sampler that does
#          not shuffle takes a per-rank seed it never uses.
# expect: none
# ----
import argparse
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    random.seed(args.seed)
    shuffle_seed = random.randint(1, 10000)
    np.random.seed(args.seed + rank)
    torch.manual_seed(args.seed + rank)
    images = TensorDataset(torch.randn(4096, 3, 48, 48))
    sampler = DistributedSampler(images, shuffle=True, seed=shuffle_seed)
    loader = DataLoader(images, batch_size=16, sampler=sampler)
    extra = TensorDataset(torch.randn(512, 3, 48, 48))
    extra_sampler = DistributedSampler(extra, seed=args.seed)
    extra_loader = DataLoader(extra, batch_size=16, sampler=extra_sampler)
    val = TensorDataset(torch.randn(256, 3, 48, 48))
    val_loader = DataLoader(val, batch_size=16, sampler=DistributedSampler(val, shuffle=False, seed=args.seed + rank))
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Conv2d(3, 3, 3, padding=1).cuda())
    optim = torch.optim.Adam(model.parameters())
    for epoch in range(100):
        sampler.set_epoch(epoch)
        extra_sampler.set_epoch(epoch)
        for (x,), (y,) in zip(loader, extra_loader):
            loss = model(x.cuda()).abs().mean() + model(y.cuda()).abs().mean()
            optim.zero_grad()
            loss.backward()
            optim.step()
        with torch.no_grad():
            for (v,) in val_loader:
                model(v.cuda())


if __name__ == "__main__":
    main()
