# stagec fixture: t22e neg_iterable_split_by_rank_too (issue 22, class 3 traps; mark M8's look-alikes)
# named: on the command line (a torchrun script)
# context: the same streaming datasets, but `RankedLines` splits by rank and worker in
#          __iter__, `Lines` is built from the rank's own shard of the list, and `LocalLines`
#          reads the rank from torch.distributed itself; an accelerate-free plain loader each.
# expect: none.
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class RankedLines(IterableDataset):
    def __init__(self, lines, rank, world):
        self.lines = lines
        self.rank = rank
        self.world = world

    def __iter__(self):
        worker = get_worker_info()
        n = worker.num_workers if worker is not None else 1
        wid = worker.id if worker is not None else 0
        yield from self.lines[self.rank * n + wid :: self.world * n]


class Lines(IterableDataset):
    def __init__(self, lines):
        self.lines = lines

    def __iter__(self):
        worker = get_worker_info()
        yield from self.lines[worker.id :: worker.num_workers]


class LocalLines(IterableDataset):
    def __init__(self, lines):
        self.lines = lines

    def __iter__(self):
        worker = get_worker_info()
        mine = self.lines[dist.get_rank() :: dist.get_world_size()]
        yield from mine[worker.id :: worker.num_workers]


def main(path):
    dist.init_process_group("nccl")
    with open(path) as f:
        lines = f.read().splitlines()
    rank, world = dist.get_rank(), dist.get_world_size()
    model = nn.parallel.DistributedDataParallel(nn.Linear(1, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loaders = [
        DataLoader(RankedLines(lines, rank, world), batch_size=64, num_workers=4),
        DataLoader(Lines(lines[rank::world]), batch_size=64, num_workers=4),
        DataLoader(LocalLines(lines), batch_size=64, num_workers=4),
    ]
    for loader in loaders:
        for x in loader:
            opt.zero_grad()
            model(x.cuda()).mean().backward()
            opt.step()
