# stagec fixture: neg_s16_loader_class_keeps_its_own_workers
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# context: a DataLoader subclass with its own signature that takes `num_workers` but does not
#          hand it to torch unchanged: it starts torch's loader without workers and runs its own
#          prefetch threads. Whatever the call passes, no worker process is restarted.
# expect: none
# ----
import argparse
import threading

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class PrefetchLoader(DataLoader):
    def __init__(self, dataset, batch_size=1, sampler=None, num_workers=0):
        super().__init__(dataset, batch_size, False, sampler, None, 0)
        self.threads = [threading.Thread(target=lambda: None) for _ in range(num_workers)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_workers", default=8, type=int)
    args = parser.parse_args()
    dist.init_process_group(backend="nccl")
    train_set = TensorDataset(torch.randn(4096, 64), torch.randint(0, 10, (4096,)))
    sampler = DistributedSampler(train_set)
    loader = PrefetchLoader(train_set, batch_size=32, sampler=sampler, num_workers=args.num_workers)
    net = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 10).cuda())
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(x.cuda()), y.cuda()).backward()
            opt.step()


if __name__ == "__main__":
    main()
