# stagec fixture: neg_s15_worker_init_not_from_base_seed (the script)
# named: on the command line (`python train.py --distributed`, one process per GPU by mp.spawn)
# context: the same, but the init function mixes the process id into numpy's seed: not only
#          the base seed decides what the workers draw, and stagec does not judge such a seed.
# expect: none
# ----
import argparse
import random

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler
from utils import RandomClipCrop, worker_init_fn


class Clips(Dataset):
    def __init__(self, count: int):
        self.count = count
        self.crop = RandomClipCrop(112, 16)

    def __len__(self):
        return self.count

    def __getitem__(self, i):
        clip = torch.randn(32, 3, 128, 171)
        return self.crop(clip), i % 400


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=200)
    return parser.parse_args()


def main_worker(rank: int, gpus: int, opt) -> None:
    random.seed(opt.seed)
    np.random.seed(opt.seed)
    torch.manual_seed(opt.seed)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:23456", world_size=gpus, rank=rank)
    torch.cuda.set_device(rank)
    data = Clips(9500)
    sampler = DistributedSampler(data)
    loader = DataLoader(
        data, batch_size=32, sampler=sampler, num_workers=opt.workers, worker_init_fn=worker_init_fn, persistent_workers=True
    )
    model = nn.parallel.DistributedDataParallel(nn.Conv3d(3, 400, 3).cuda(), device_ids=[rank])
    opt_ = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(opt.epochs):
        sampler.set_epoch(epoch)
        for clips, labels in loader:
            loss = nn.functional.cross_entropy(model(clips.cuda().transpose(1, 2)).mean(dim=(2, 3, 4)), labels.cuda())
            opt_.zero_grad()
            loss.backward()
            opt_.step()


if __name__ == "__main__":
    opt = parse()
    gpus = torch.cuda.device_count()
    mp.spawn(main_worker, nprocs=gpus, args=(gpus, opt))
