# stagec fixture: s28 pos_loader_restarted_in_next (issue 22, class 9; Pyramid-Flow's shape, from
#                 mmcv: an `IterLoader` wrapper whose `__next__` starts the loader over when it
#                 runs out, drawn from with `next(…)` at every training step)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T105 at 47:25 10 workers restarted at each pass the wrapper starts
# ----
import argparse
import time

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class IterLoader:
    """A DataLoader as an endless iterator."""

    def __init__(self, dataloader, use_distributed=False, epoch=0):
        self._dataloader = dataloader
        self.iter_loader = iter(self._dataloader)
        self._use_distributed = use_distributed
        self._epoch = epoch

    def __next__(self):
        try:
            data = next(self.iter_loader)
        except StopIteration:
            self._epoch += 1
            if hasattr(self._dataloader.sampler, "set_epoch") and self._use_distributed:
                self._dataloader.sampler.set_epoch(self._epoch)
            time.sleep(2)
            self.iter_loader = iter(self._dataloader)
            data = next(self.iter_loader)
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
