# stagec fixture: neg_s14_worker_init_partial_rank (mmdetection's shape)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the partial binds the rank and the worker count too, and the seed mixes them in:
#          every worker of every rank gets its own seed.
# expect: none
# ----
import random
from functools import partial

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler


def worker_init_fn(worker_id, num_workers, rank, seed):
    worker_seed = num_workers * rank + worker_id + seed
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
    init_fn = partial(worker_init_fn, num_workers=workers, rank=rank, seed=seed)
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
