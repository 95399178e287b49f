# stagec fixture: pos_s15_worker_seed_from_torch_recipe (was t22e's neg_worker_seed_from_torch)
# named: on the command line (a torchrun script)
# context: every rank seeds torch and numpy with --seed; the workers reseed numpy and `random`
#          from the worker's own torch seed, as PyTorch's reproducibility notes recommend.
# expect:
#   T101 at 53:5 torch.initial_seed() in a worker is the loader's base seed plus the worker id,
#        so these init functions leave the base seed in charge: drawn from the same torch seed
#        on every rank, worker k of every rank draws the same crops and flips. This was a
#        negative while stagec said nothing about equal base seeds at all; since the base-seed
#        check (session 10) reports a loader without an init function in this run, one whose
#        init function only re-seeds from the base seed is the same hazard. Reported once, at
#        the seeding, for both loaders.
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
    np.random.seed(torch.initial_seed() % 2**32)


def reseed_python(_):
    info = torch.utils.data.get_worker_info()
    random.seed((torch.initial_seed() + info.id) % 2**32)


class Crops(Dataset):
    def __init__(self, n):
        self.images = torch.randn(n, 3, 40, 40)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        y, x = np.random.randint(0, 8, size=2)
        flip = random.random() < 0.5
        crop = self.images[i, :, y : y + 32, x : x + 32]
        return crop.flip(-1) if flip else crop


def main():
    dist.init_process_group("nccl")
    torch.manual_seed(ARGS.seed)
    np.random.seed(ARGS.seed)
    data = Crops(4096)
    sampler = DistributedSampler(data)
    model = nn.parallel.DistributedDataParallel(nn.Conv2d(3, 8, 3).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    crops = DataLoader(data, batch_size=32, sampler=sampler, num_workers=4, worker_init_fn=reseed_numpy)
    flips = DataLoader(data, batch_size=32, sampler=sampler, num_workers=4, worker_init_fn=reseed_python)
    for epoch in range(4):
        sampler.set_epoch(epoch)
        for x in crops if epoch % 2 else flips:
            opt.zero_grad()
            model(x.cuda()).mean().backward()
            opt.step()

if __name__ == "__main__":
    main()
