# stagec fixture: pos_s14_worker_init_partial_local_seed
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the partial binds the worker count and the seed, not the rank; the seed the init
#          function computes is the worker id plus 42: worker k of every rank seeds alike.
# expect:
#   T101 at 20:5 42 + worker id, alike on every rank (one finding for the three seeding calls)
# ----
import random
from functools import partial

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler


def worker_init_fn(worker_id, num_workers, rank, seed):
    worker_seed = worker_id + seed
    np.random.seed(worker_seed)
    random.seed(worker_seed)
    torch.manual_seed(worker_seed)


class Images(Dataset):
    def __len__(self):
        return 10000

    def __getitem__(self, i):
        return torch.rand(3, 32, 32) * np.random.uniform(0.8, 1.2), i % 10


def main(seed=42, workers=4):
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    dataset = Images()
    sampler = DistributedSampler(dataset)
    init_fn = partial(worker_init_fn, num_workers=workers, seed=seed)
    loader = DataLoader(
        dataset, batch_size=16, sampler=sampler, num_workers=workers, persistent_workers=True, worker_init_fn=init_fn
    )
    model = nn.parallel.DistributedDataParallel(nn.Linear(3 * 32 * 32, 10).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda().flatten(1)), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
