# stagec fixture: s25 neg_task_loaders_read_once_by_mixer (issue 22, class 9; the look-alike of
#                 pos_s25_task_loaders_restarted_by_meta_loader: the mixer passes over each
#                 task's loader once, in turn, and the run makes one pass over the mixer)
# named: on the command line (`horovodrun -np 8 python train.py`)
# expect: nothing
# ----
import random

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class MetaLoader(object):
    def __init__(self, loaders, accum_steps=1):
        self.name2loader = {}
        self.name2iter = {}
        self.sampling_pools = []
        for n, l in loaders.items():
            if isinstance(l, tuple):
                l, r = l
            else:
                r = 1
            self.name2loader[n] = l
            self.name2iter[n] = iter(l)
            self.sampling_pools.extend([n] * r)

    def __iter__(self):
        for task, loader in self.name2loader.items():
            for batch in loader:
                yield task, batch


def build_dataloader(dataset, n_workers):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=sampler, batch_size=8, num_workers=n_workers)
    return loader


def create_dataloaders(tasks):
    dataloaders = {}
    for task, ratio in tasks:
        loader = build_dataloader(TensorDataset(torch.randn(64, 4)), 4)
        dataloaders[task] = (loader, ratio)
    return dataloaders, None


def main():
    dist.init_process_group("nccl")
    train_dataloaders, _ = create_dataloaders([("mlm", 2), ("itm", 1)])
    meta_loader = MetaLoader(train_dataloaders)
    for step, (name, batch) in enumerate(meta_loader):
        if step > 1000:
            break


if __name__ == "__main__":
    main()
