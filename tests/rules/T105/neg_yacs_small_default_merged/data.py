# stagec fixture: neg_yacs_small_default_merged (issue 22, class 9): pos_t22a_yacs_config's loader,
# named: on the command line with config.py and main.py
# runtime: multi-rank (main.py initialises the process group; this module shards by rank)
# expect: none (the yacs default is 0, no workers; the merged YAML file may raise it, but a
#   value the run may set is not reported from a default that starts none)
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
