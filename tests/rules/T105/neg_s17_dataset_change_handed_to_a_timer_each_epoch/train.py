# stagec fixture: neg_s17_dataset_change_handed_to_a_timer_each_epoch
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# context: pos_s17_dataset_change_handed_once_to_a_timer, but the script hands `prepare` to the
#          timer at the start of every epoch: the dataset changes between passes, and workers
#          kept alive would go on with their stale copy of it.
# expect: none
# ----
import time

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class EpochSet(TensorDataset):
    def set_epoch(self, epoch):
        self.epoch = epoch


train_set = EpochSet(torch.randn(1024, 16))


def timed(closure):
    start = time.perf_counter()
    result = closure()
    return result, time.perf_counter() - start


def prepare():
    train_set.set_epoch(0)


def main():
    dist.init_process_group("nccl")
    sampler = DistributedSampler(train_set)
    loader = DataLoader(train_set, sampler=sampler, batch_size=32, num_workers=4)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1).cuda())
    for epoch in range(10):
        sampler.set_epoch(epoch)
        timed(prepare)
        for (x,) in loader:

            def step():
                model(x.cuda()).sum().backward()

            timed(step)


if __name__ == "__main__":
    main()
