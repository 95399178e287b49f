# stagec fixture: pos_s16_loader_restarted_in_timed_closure
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# context: suncet's PAWS loop: the supervised loader's iterator is made again with
#          `iter(supervised_loader)` whenever it runs out, inside `load_imgs()`, a function defined
#          in the step loop and run there through a timing helper it is handed to
#          (`gpu_timer(load_imgs)` calls `closure()`). Each new iterator starts the workers again.
# expect:
#   T105 at 44:9 8 workers per rank, started again at every `iter(supervised_loader)`
# ----
import time

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def gpu_timer(closure):
    start = time.perf_counter()
    result = closure()
    return result, time.perf_counter() - start


class ClassStratifiedSampler(torch.utils.data.Sampler):
    def __init__(self, data_source, batch_size):
        self.data_source = data_source
        self.batch_size = batch_size

    def __iter__(self):
        n = len(self.data_source)
        for i in range(0, n - self.batch_size + 1, self.batch_size):
            yield list(range(i, i + self.batch_size))

    def __len__(self):
        return len(self.data_source) // self.batch_size


def main():
    dist.init_process_group(backend="nccl")
    unsupervised_set = TensorDataset(torch.randn(4096, 64))
    supervised_set = TensorDataset(torch.randn(640, 64), torch.randint(0, 10, (640,)))
    unsupervised_sampler = DistributedSampler(unsupervised_set)
    unsupervised_loader = DataLoader(unsupervised_set, sampler=unsupervised_sampler, batch_size=64, num_workers=0)
    supervised_loader = DataLoader(supervised_set, batch_sampler=ClassStratifiedSampler(supervised_set, 32),
        num_workers=8)
    encoder = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 10).cuda())
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
    iter_supervised = None
    for epoch in range(100):
        unsupervised_sampler.set_epoch(epoch)
        for itr, udata in enumerate(unsupervised_loader):

            def load_imgs():
                nonlocal iter_supervised
                try:
                    sdata = next(iter_supervised)
                except Exception:
                    iter_supervised = iter(supervised_loader)
                    sdata = next(iter_supervised)
                return sdata

            (simgs, labels), dtime = gpu_timer(load_imgs)
            loss = torch.nn.functional.cross_entropy(encoder(simgs.cuda()), labels.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
