# stagec fixture: neg_s16_loader_passed_over_once_in_timed_closure
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# context: pos_s16_loader_restarted_in_timed_closure's helper and loaders, but the function handed
#          to the timing helper passes over the supervised loader once, before training (a
#          warm-up of class prototypes): its workers start once.
# expect: none
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
    def prototypes():
        feats = [encoder(x.cuda()).detach() for x, _ in supervised_loader]
        return torch.cat(feats).mean(0), len(feats)

    (proto, n), dtime = gpu_timer(prototypes)
    for epoch in range(100):
        unsupervised_sampler.set_epoch(epoch)
        for itr, (uimgs,) in enumerate(unsupervised_loader):
            loss = (encoder(uimgs.cuda()) - proto).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

if __name__ == "__main__":
    main()
