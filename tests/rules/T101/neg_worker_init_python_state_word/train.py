# stagec fixture: neg_worker_init_python_state_word (issue 22, class 3: "`worker_init_fn` that seeds
#   look-alikes: Python's `random` is seeded by PyTorch in each worker with an integer, so its state
#   word differs per worker and rank; numpy seeded from `torch.initial_seed()` differs too)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group; each rank seeds with seed + rank, which does not help)
# expect: none
# ----
import os
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def worker_init_fn(worker_id):
    random.seed(random.getstate()[1][0] + worker_id)
    np.random.seed(torch.initial_seed() % 2**32)


def set_random_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class Clouds(Dataset):
    def __len__(self):
        return 10_000

    def __getitem__(self, i):
        points = np.random.randn(1024, 3).astype(np.float32)
        return points * np.random.uniform(0.8, 1.2)


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    set_random_seed(0 + int(os.environ["LOCAL_RANK"]) + rank)
    data = Clouds()
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler, num_workers=8,
                        worker_init_fn=worker_init_fn, persistent_workers=True)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 3).cuda())
    opt = torch.optim.AdamW(model.parameters())
    for epoch in range(300):
        sampler.set_epoch(epoch)
        for points in loader:
            loss = model(points.cuda()).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
