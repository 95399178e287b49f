# stagec fixture: t22h neg_worker_seed_rank_scaled (issue 22, class 3: look-alikes of a seed
# that adds the rank and the worker id)
# named: on the command line (a torchrun script)
# expect: none
#   - the train loader's init scales the rank past the workers (seed + 1000 * rank + wid):
#     every (rank, worker) pair has its own seed;
#   - the eval loader's init starts from torch.initial_seed(), which differs per worker;
#   - the probe loader's init adds the rank and the worker id, but the loader has one worker,
#     so no two pairs share a sum.
# ----
import os
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

SEED = 1234
RANK = int(os.environ["RANK"])


def train_init(wid):
    np.random.seed(SEED + 1000 * RANK + wid)


def eval_init(wid):
    random.seed(torch.initial_seed() % 2**32 + RANK + wid)


def probe_init(wid):
    np.random.seed(SEED + RANK + wid)


def main():
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(8000, 16))
    sampler = DistributedSampler(data)
    train = DataLoader(data, batch_size=64, sampler=sampler, num_workers=4, worker_init_fn=train_init)
    evals = DataLoader(data, batch_size=64, num_workers=4, worker_init_fn=eval_init)
    probe = DataLoader(data, batch_size=64, num_workers=1, worker_init_fn=probe_init)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for loader in (train, evals, probe):
            for (x,) in loader:
                print(epoch, x.sum().item())


if __name__ == "__main__":
    main()
