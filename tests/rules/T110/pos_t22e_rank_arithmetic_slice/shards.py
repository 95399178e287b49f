# stagec fixture: t22e pos_rank_arithmetic_slice (issue 22, class 4; review mark M4)
# named: on the command line alone
# runtime: multi-rank: the process group is initialised, each rank passes its own rank
# expect:
#   T110 at 34:25 the unsorted glob is handed to a streaming dataset that starts its slice at
#        `rank * workers + worker id`: the start is arithmetic on the rank, so each rank
#        (and worker) takes every n-th file of its own listing order.
#   T110 at 35:18 Path.rglob() through the same class, kept in a local first.
# ----
import glob

import torch.distributed as dist
from pathlib import Path
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class TokenShards(IterableDataset):
    def __init__(self, paths, world=1, rank=0):
        self.paths = paths
        self.world = world
        self.rank = rank

    def __iter__(self):
        w = get_worker_info()
        n_workers = w.num_workers if w is not None else 1
        worker = w.id if w is not None else 0
        first = self.rank * n_workers + worker
        for p in self.paths[first :: self.world * n_workers]:
            yield p


def run(root):
    dist.init_process_group("nccl")
    train = TokenShards(glob.glob(f"{root}/train-*.bin"), dist.get_world_size(), dist.get_rank())
    found = list(Path(root).rglob("val-*.bin"))
    val = TokenShards(found, world=dist.get_world_size(), rank=dist.get_rank())
    for batch in DataLoader(train, batch_size=None, num_workers=2):
        pass
    return val
