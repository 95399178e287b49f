# stagec fixture: s25 pos_task_loaders_restarted_by_meta_loader (issue 22, class 9; review 33a's
#                 UNITER M1, M2, ClipBERT's MetaLoader: each task's loader goes into a dict,
#                 as a `(loader, ratio)` pair, that a mixing wrapper takes whole and starts each
#                 loader over as it runs out, so its workers restart at every pass)
# named: on the command line (`horovodrun -np 8 python train.py`)
# expect:
#   T105 at 45:65 the task loader's four workers start again each time the mixer restarts it.
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
        while True:
            task = random.choice(self.sampling_pools)
            iter_ = self.name2iter[task]
            try:
                batch = next(iter_)
            except StopIteration:
                iter_ = iter(self.name2loader[task])
                batch = next(iter_)
                self.name2iter[task] = iter_
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
