# stagec fixture: t22h pos_worker_seed_factory_star, the loader factories (see train.py)
# named: on the command line
# expect: none in this file
# ----
from torch.utils.data import DataLoader, DistributedSampler


def torch_loader(dataset, batch_size, workers=4, _init=None):
    sampler = DistributedSampler(dataset)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=workers, worker_init_fn=_init)


def synthetic_loader(dataset, batch_size, workers=4, _init=None):
    return None
