# stagec fixture: pos_s20_seeding_only_in_worker_init (issue 22, class 3: the only seeding of
#                 torch is a helper that loader workers' init function calls, detectron2's
#                 `seed_all_rng(np.random.randint(2 ** 31) + worker_id)`: it seeds the workers,
#                 not the rank, so the `random_split` on each rank draws from torch's
#                 unseeded global RNG and each rank splits differently: a sample one rank
#                 validates on, another trains on)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# runtime: multi-rank (init_process_group)
# expect:
#   T101 at 47:18 random_split without generator= draws from the global RNG, which this code does not seed alike …
# ----
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Sampler, TensorDataset


def seed_all_rng(seed):
    np.random.seed(seed)
    torch.manual_seed(seed)
    random.seed(seed)


def worker_init_reset_seed(worker_id):
    seed_all_rng(np.random.randint(2**31) + worker_id)


class TrainingSampler(Sampler):
    def __init__(self, size):
        self.size = size
        self.rank = dist.get_rank()
        self.world = dist.get_world_size()

    def __iter__(self):
        order = torch.randperm(self.size).tolist()
        return iter(order[self.rank :: self.world])

    def __len__(self):
        return self.size // self.world


def main():
    dist.init_process_group("nccl")
    data = TensorDataset(torch.zeros(64, 2))
    train, val = torch.utils.data.random_split(data, [56, 8])
    loader = DataLoader(train, batch_size=4, sampler=TrainingSampler(len(train)), num_workers=4,
                        persistent_workers=True, worker_init_fn=worker_init_reset_seed)
    model = torch.nn.Linear(2, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        for (x,) in loader:
            loss = model(x).sum()
            loss.backward()
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
