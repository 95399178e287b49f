# stagec fixture: s28 neg_wrapper_next_does_not_restart (issue 22, class 9; the look-alike of
#                 pos_s28_loader_restarted_in_next)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
#   - the wrapper's `__next__` lets the loader's end through (`raise`) and `__init__` alone
#     starts a pass: the loader is passed over once, its workers started once.
# ----
import argparse
import time

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class IterLoader:
    """A DataLoader drawn from once through."""

    def __init__(self, dataloader, use_distributed=False, epoch=0):
        self._dataloader = dataloader
        self.iter_loader = iter(self._dataloader)
        self._use_distributed = use_distributed
        self._epoch = epoch

    def __next__(self):
        try:
            data = next(self.iter_loader)
        except StopIteration:
            time.sleep(2)
            raise
        return data

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._dataloader)


def create_dataloader(dataset, batch_size, num_workers, epoch=0):
    sampler = DistributedSampler(dataset, shuffle=True, seed=epoch)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=True,
                        num_workers=num_workers, pin_memory=True)
    return IterLoader(loader, use_distributed=True, epoch=epoch)


def main(args):
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1).cuda())
    loader = create_dataloader(torch.load(args.data), args.batch_size, args.num_workers)
    for step in range(args.max_steps):
        batch = next(loader)
        model(batch.cuda()).sum().backward()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_workers", default=10, type=int)
    parser.add_argument("--batch_size", default=4, type=int)
    parser.add_argument("--max_steps", default=100_000, type=int)
    parser.add_argument("--data", default="videos.pt")
    main(parser.parse_args())
