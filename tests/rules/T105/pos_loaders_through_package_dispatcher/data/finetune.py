# stagec fixture: pos_loaders_through_package_dispatcher (issue 22, class 9)
# named: on the command line with main.py and data/__init__.py
# runtime: multi-rank (main.py initialises the process group; this module shards by rank)
# expect:
#   T105 at 26:9 the training loader's 10 workers, restarted at each of the 100 epochs: the
#        loader is the third element of a tuple data/__init__.py's dispatcher returns as it is,
#        unpacked in main.py. Fix: persistent_workers=True after the argument (26:23).
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

WORKERS = 10


def build_loader_finetune(config):
    train = TensorDataset(torch.randn(1000, 8))
    val = TensorDataset(torch.randn(100, 8))
    world, rank = dist.get_world_size(), dist.get_rank()
    train_sampler = DistributedSampler(train, num_replicas=world, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val, num_replicas=world, rank=rank, shuffle=False)
    train_loader = DataLoader(
        train,
        sampler=train_sampler,
        batch_size=config["batch_size"],
        num_workers=WORKERS,
        drop_last=True,
    )
    val_loader = DataLoader(val, sampler=val_sampler, batch_size=64, num_workers=WORKERS)
    return train, val, train_loader, val_loader
