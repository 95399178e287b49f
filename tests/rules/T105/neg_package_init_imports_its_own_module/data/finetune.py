# stagec fixture: neg_package_init_imports_its_own_module (issue 22, class 9)
# named: on the command line with main.py, data/__init__.py and finetune.py
# runtime: multi-rank (main.py initialises the process group; this module shards by rank)
# expect: none (no workers: the package's own module, which data/__init__.py's `.finetune` names;
#   the top-level finetune.py with 10 workers is another module, never imported)
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

WORKERS = 0


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
