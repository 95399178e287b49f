# stagec fixture: t22c_neg_worker_init_per_worker_seed
# named: on the command line (a torchrun script)
# context: no experiment config; each rank reads its shard through a DistributedSampler and
#          4 loader workers whose init function reseeds numpy for random crops from the
#          worker's own torch seed (torch.initial_seed() differs per worker), or from the
#          --seed default plus the worker id and the rank.
# expect: none.
# ----
import argparse

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=7)
parser.add_argument("--workers", type=int, default=4)
ARGS = parser.parse_args()


def seed_worker(worker_id: int) -> None:
    np.random.seed(torch.initial_seed() % 2**32)


def seed_worker_by_rank(worker_id: int) -> None:
    np.random.seed(ARGS.seed + 1000 * dist.get_rank() + worker_id)


class Crops(Dataset):
    def __init__(self, n: int):
        self.images = torch.randn(n, 3, 40, 40)

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, i: int) -> torch.Tensor:
        y, x = np.random.randint(0, 8, size=2)
        return self.images[i, :, y : y + 32, x : x + 32]


def main() -> None:
    dist.init_process_group("nccl")
    data = Crops(4096)
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler, num_workers=ARGS.workers, worker_init_fn=seed_worker)
    model = nn.parallel.DistributedDataParallel(nn.Conv2d(3, 8, 3).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    extra = DataLoader(data, batch_size=32, sampler=sampler, num_workers=ARGS.workers, worker_init_fn=seed_worker_by_rank)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x in loader if epoch % 2 else extra:
            opt.zero_grad()
            model(x.cuda()).mean().backward()
            opt.step()


if __name__ == "__main__":
    main()
