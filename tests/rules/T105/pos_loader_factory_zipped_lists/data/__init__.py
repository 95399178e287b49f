# stagec fixture: pos_loader_factory_zipped_lists (issue 22, class 9: a loader factory over zipped lists; ALBEF's shape)
# named: on the command line with train.py and probe.py
# runtime: multi-rank (train.py initialises the process group)
# expect:
#   T105 at 26:37 the factory's loader: its `n_worker` is an entry of the callers' `num_workers`
#        lists (`[4, 4]`, `[2, 0]`), through `zip`; the factory returns its list of loaders,
#        train.py unpacks it and iterates the training loader every epoch. One caller passes 0,
#        so the fix keeps the workers alive only where there are any (n_worker > 0).
# ----
import torch
from torch.utils.data import DataLoader


def create_sampler(datasets, shuffles, num_tasks, global_rank):
    samplers = []
    for dataset, shuffle in zip(datasets, shuffles):
        sampler = torch.utils.data.DistributedSampler(dataset, num_replicas=num_tasks, rank=global_rank, shuffle=shuffle)
        samplers.append(sampler)
    return samplers


def create_loader(datasets, samplers, batch_size, num_workers, is_trains):
    loaders = []
    for dataset, sampler, bs, n_worker, is_train in zip(datasets, samplers, batch_size, num_workers, is_trains):
        loader = DataLoader(
            dataset, batch_size=bs, num_workers=n_worker, sampler=sampler, drop_last=is_train
        )
        loaders.append(loader)
    return loaders
