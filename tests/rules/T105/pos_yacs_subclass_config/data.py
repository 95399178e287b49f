# stagec fixture: pos_yacs_subclass_config (issue 22, class 9): the config a project subclass of fvcore's CfgNode,
# named: on the command line with config.py and main.py
# runtime: multi-rank (main.py initialises the process group; this module shards by rank)
# expect:
#   T105 at 27:9 config.DATA.NUM_WORKERS is the default 8 of a project subclass of CfgNode (no attributes of
#        its own: the module-level stores answer) until main.py merges the run's YAML
#        file and command line into the config: reported with the default named and labelled
#        (config.py), and a fix that holds whatever the file sets: persistent_workers=
#        config.DATA.NUM_WORKERS > 0 after the argument (27:44).
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
