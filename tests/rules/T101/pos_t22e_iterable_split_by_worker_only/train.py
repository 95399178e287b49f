# stagec fixture: t22e pos_iterable_split_by_worker_only (issue 22, class 3; review mark M8)
# named: on the command line (a torchrun script)
# context: a streaming dataset hands each loader worker its part of the line list
#          (get_worker_info), but nothing splits by rank; every rank iterates it through a
#          plain DataLoader with 4 workers.
# expect:
#   T101 at 33:25 every rank yields the same lines: the job trains on one rank's data N times.
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class Lines(IterableDataset):
    def __init__(self, path):
        with open(path) as f:
            self.lines = f.read().splitlines()

    def __iter__(self):
        worker = get_worker_info()
        if worker is None:
            yield from self.lines
            return
        for line in self.lines[worker.id :: worker.num_workers]:
            yield torch.tensor([float(len(line))])


def main(path):
    dist.init_process_group("nccl")
    model = nn.parallel.DistributedDataParallel(nn.Linear(1, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(Lines(path), batch_size=64, num_workers=4)
    for x in loader:
        opt.zero_grad()
        model(x.cuda()).mean().backward()
        opt.step()
