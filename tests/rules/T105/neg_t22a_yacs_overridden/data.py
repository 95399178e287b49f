# stagec fixture: t22a neg_yacs_overridden (issue 22, class 9)
# named: on the command line with config.py and main.py
# runtime: multi-rank (main.py initialises the process group; this module shards by rank)
# expect: none.
#   The yacs default is 8, but update_config() overwrites config.DATA.NUM_WORKERS with the
#   --workers flag (no default): the count a rank uses is not known, so nothing is said.
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def build_loader(config):
    data = TensorDataset(torch.randn(50000, 32), torch.randint(0, 100, (50000,)))
    sampler = DistributedSampler(
        data,
        num_replicas=dist.get_world_size(),
        rank=dist.get_rank(),
    )
    return DataLoader(
        data,
        sampler=sampler,
        batch_size=config.DATA.BATCH_SIZE,
        num_workers=config.DATA.NUM_WORKERS,
        drop_last=True,
    )
