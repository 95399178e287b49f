# stagec fixture: s25 neg_loader_subclass_keeps_one_iterator (issue 22, class 9; review 33a's
#                 CoCLR: a DataLoader subclass takes one iterator over a repeating batch sampler
#                 in `__init__` and yields from it at every pass, so its workers stay alive)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class _RepeatSampler:
    def __init__(self, sampler):
        self.sampler = sampler

    def __iter__(self):
        while True:
            yield from iter(self.sampler)


class FastDataLoader(DataLoader):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "batch_sampler", _RepeatSampler(self.batch_sampler))
        self.iterator = super().__iter__()

    def __len__(self):
        return len(self.batch_sampler.sampler)

    def __iter__(self):
        for _ in range(len(self)):
            yield next(self.iterator)


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    data = TensorDataset(torch.randn(512, 8))
    sampler = DistributedSampler(data)
    loader = FastDataLoader(data, batch_size=16, sampler=sampler, num_workers=16, pin_memory=True)
    model = torch.nn.Linear(8, 8).cuda(rank)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            model(x.cuda(rank))


if __name__ == "__main__":
    main()
