# stagec fixture: t22e neg_worker_seed_per_rank (issue 22, class 3 traps; mark M7's look-alikes)
# named: on the command line (a torchrun script)
# context: each rank seeds torch and numpy with --seed plus its rank; four loaders whose workers
#          reseed from the worker id plus: the parent's `random` state (different per rank here;
#          numpy's first state word is not: `pos_worker_init_numpy_state_word`),
#          a base that includes the rank, the worker's own torch seed, and a value stagec
#          cannot resolve (the dataset's own seed attribute).
# expect: none.
# ----
import argparse
import random

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=3)
ARGS = parser.parse_args()


def reseed_numpy(worker_id):
    random.seed(random.getstate()[1][0] + worker_id)


def reseed_by_rank(worker_id):
    base = ARGS.seed + 100 * dist.get_rank()
    random.seed(base + worker_id)


def reseed_from_torch(worker_id):
    np.random.seed((torch.initial_seed() + worker_id) % 2**32)


def reseed_from_dataset(worker_id):
    info = torch.utils.data.get_worker_info()
    random.seed(info.dataset.base_seed + info.id)


class Crops(Dataset):
    def __init__(self, n, seed):
        self.images = torch.randn(n, 3, 40, 40)
        self.base_seed = seed

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        y, x = np.random.randint(0, 8, size=2)
        flip = random.random() < 0.5
        crop = self.images[i, :, y : y + 32, x : x + 32]
        return crop.flip(-1) if flip else crop


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.manual_seed(ARGS.seed + rank)
    np.random.seed(ARGS.seed + rank)
    data = Crops(4096, seed=ARGS.seed * 1000 + rank)
    sampler = DistributedSampler(data)
    model = nn.parallel.DistributedDataParallel(nn.Conv2d(3, 8, 3).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    a = DataLoader(data, batch_size=32, sampler=sampler, num_workers=4, worker_init_fn=reseed_numpy)
    b = DataLoader(data, batch_size=32, sampler=sampler, num_workers=4, worker_init_fn=reseed_by_rank)
    c = DataLoader(data, batch_size=32, sampler=sampler, num_workers=4, worker_init_fn=reseed_from_torch)
    d = DataLoader(data, batch_size=32, sampler=sampler, num_workers=4, worker_init_fn=reseed_from_dataset)
    for epoch in range(8):
        sampler.set_epoch(epoch)
        for x in (a, b, c, d)[epoch % 4]:
            opt.zero_grad()
            model(x.cuda()).mean().backward()
            opt.step()


if __name__ == "__main__":
    main()
