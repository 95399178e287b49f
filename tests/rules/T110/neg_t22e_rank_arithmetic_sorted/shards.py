# stagec fixture: t22e neg_rank_arithmetic_sorted (issue 22, class 4 traps; mark M4's look-alikes)
# named: on the command line alone
# runtime: multi-rank: the process group is initialised, each rank passes its own rank
# expect: none.
#   The slice start is arithmetic on the rank, but the glob is sorted before it reaches the
#   dataset; the second listing is sliced by the worker id only (every rank reads the whole
#   list: not an order split between ranks); the third is sorted in place by the caller.
# ----
import glob

import torch.distributed as dist
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


class WorkerOnly(IterableDataset):
    def __init__(self, paths):
        self.paths = paths

    def __iter__(self):
        w = get_worker_info()
        n_workers = w.num_workers if w is not None else 1
        start = (w.id if w is not None else 0) * 1
        yield from self.paths[start::n_workers]


def run(root):
    dist.init_process_group("nccl")
    train = TokenShards(sorted(glob.glob(f"{root}/train-*.bin")), dist.get_world_size(), dist.get_rank())
    extra = WorkerOnly(glob.glob(f"{root}/extra-*.bin"))
    val_paths = glob.glob(f"{root}/val-*.bin")
    val_paths.sort()
    val = TokenShards(val_paths, world=dist.get_world_size(), rank=dist.get_rank())
    for batch in DataLoader(train, batch_size=None, num_workers=2):
        pass
    return extra, val
