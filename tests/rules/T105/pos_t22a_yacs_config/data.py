# stagec fixture: t22a pos_yacs_config (issue 22, class 9)
# named: on the command line with config.py and main.py
# runtime: multi-rank (main.py initialises the process group; this module shards by rank)
# expect:
#   T105 at 25:9 config.DATA.NUM_WORKERS is the yacs default 8 (config.py, through
#        get_config()'s clone): 8 workers per rank × the local ranks of a node, restarted at each
#        of the 300 epochs. Fix: persistent_workers=True after the argument (25:44).
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
