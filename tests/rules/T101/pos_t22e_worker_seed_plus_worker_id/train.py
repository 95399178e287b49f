# stagec fixture: t22e pos_worker_seed_plus_worker_id (issue 22, class 3; review mark M7)
# named: on the command line (a torchrun script)
# context: every rank seeds torch and numpy with --seed; each rank reads its shard through a
#          DistributedSampler with 4 workers whose init functions reseed from the worker id plus
#          the parent's numpy state, or plus a constant.
# expect:
#   T101 at 26:5 the numpy state the worker id is added to is seeded alike on every rank:
#        worker k of every rank draws the same crops.
#   T101 at 31:5 1234 + worker id: the same seed for worker k on every rank.
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
    np.random.seed(np.random.get_state()[1][0] + worker_id)


def reseed_python(_):
    info = torch.utils.data.get_worker_info()
    random.seed((1234 + info.id) % 2**32)


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
