# stagec fixture: pos_s14_worker_init_partial_constant_seed (the entry)
# named: on the command line (`torchrun --nproc_per_node=8 train.py --fix_random_seed`)
# expect: none in this file (the seeding call is where the fix goes)
# ----
import argparse
from functools import partial

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler

import common_utils


class Points(Dataset):
    def __len__(self):
        return 10000

    def __getitem__(self, i):
        pts = torch.randn(1024, 3)
        return pts * (0.9 + 0.2 * torch.rand(1)), i % 10


def build_dataloader(batch_size, workers=4, seed=None):
    dataset = Points()
    sampler = DistributedSampler(dataset)
    return sampler, DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=sampler,
        num_workers=workers,
        persistent_workers=True,
        worker_init_fn=partial(common_utils.worker_init_fn, seed=seed),
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix_random_seed", action="store_true", default=False)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    sampler, loader = build_dataloader(16, workers=4, seed=666 if args.fix_random_seed else None)
    model = nn.parallel.DistributedDataParallel(nn.Linear(3, 10).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for pts, y in loader:
            loss = nn.functional.cross_entropy(model(pts.cuda()).mean(1), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
