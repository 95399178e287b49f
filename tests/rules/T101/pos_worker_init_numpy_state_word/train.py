# stagec fixture: pos_worker_init_numpy_state_word (issue 22, class 3: "`worker_init_fn` that seeds
#   numpy ... every worker of every rank draws alike"; the re-seeding a well-known blog post once
#   recommended, which PyTorch's own numpy seeding in workers (1.9 and later) turned into a constant)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group; each rank seeds with seed + rank, which does not help)
# expect:
#   T101 at 21:5 np.random.get_state()[1][0] is 2147483648 in every worker: worker k of every rank,
#        every epoch, gets seed 2147483648 + k
# ----
import os
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def worker_init_fn(worker_id):
    np.random.seed(np.random.get_state()[1][0] + worker_id)


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
