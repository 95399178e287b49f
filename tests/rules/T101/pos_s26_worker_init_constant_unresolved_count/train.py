# stagec fixture: s26 pos_worker_init_constant_unresolved_count (issue 22, class 3; HybrIK's
#                 scripts/train_smpl.py: the init function reseeds numpy and random with the
#                 constant --seed in every worker; the count is the flag divided by the GPUs seen
#                 at run time, unknown here but written for workers)
# named: on the command line (`python train.py --launcher pytorch`, spawning one rank per GPU)
# expect:
#   T101 at 24:5 np.random.seed(opt.seed) = 23333 in every worker of every rank
# ----
import argparse
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=23333)
parser.add_argument("--nThreads", type=int, default=60)
opt = parser.parse_args()


def _init_fn(worker_id):
    np.random.seed(opt.seed)
    random.seed(opt.seed)


class Crops(Dataset):
    def __len__(self):
        return 4096

    def __getitem__(self, i):
        scale = np.random.uniform(0.7, 1.3)
        return torch.full((8,), float(scale)), torch.zeros(1)


def main():
    dist.init_process_group("nccl")
    num_gpu = torch.cuda.device_count()
    opt.nThreads = int(opt.nThreads / num_gpu)
    dataset = Crops()
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler, num_workers=opt.nThreads, worker_init_fn=_init_fn)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1))
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, y in loader:
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main()
