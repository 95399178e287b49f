# stagec fixture: pos_s17_dataset_change_handed_once_to_a_timer
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# context: a timing helper runs the closure it is handed. The script hands it the dataset's
#          one-time preparation (`prepare()`, which sets the dataset's epoch once) before
#          training, and the step function inside the epoch loop. The dataset does not change
#          between passes, so each pass restarts the loader's workers for nothing: the helper
#          being called in the loop with another function does not run `prepare` there.
# expect:
#   T105 at 39:68 4 workers per rank, started again at each epoch
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
    timed(prepare)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for (x,) in loader:

            def step():
                model(x.cuda()).sum().backward()

            timed(step)


if __name__ == "__main__":
    main()
