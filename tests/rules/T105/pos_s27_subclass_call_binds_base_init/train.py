# stagec fixture: s27 pos_subclass_call_binds_base_init (issue 22, class 9; the base's
#                 `__init__` is bound by its own call with 4 workers and by a subclass's call with
#                 0: the count may be 0, so the fix must not be a bare persistent_workers=True,
#                 which raises with 0 workers)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T105 at 24:66 num_workers 4 or 0 (the subclass's call counts), persistent_workers only
#        where the count is above 0
# ----
import sys

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class Runner:
    def __init__(self, workers):
        self.workers = workers

    def run(self):
        data = TensorDataset(torch.randn(64, 8))
        sampler = DistributedSampler(data)
        loader = DataLoader(data, batch_size=8, sampler=sampler, num_workers=self.workers)
        model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1))
        for epoch in range(10):
            sampler.set_epoch(epoch)
            for (x,) in loader:
                model(x).sum().backward()


class InProcessRunner(Runner):
    pass


if __name__ == "__main__":
    dist.init_process_group("nccl")
    if sys.argv[1] == "fast":
        Runner(4).run()
    else:
        InProcessRunner(0).run()
