# stagec fixture: pos_loader_iterated_by_prefetcher (issue 22, class 9: Deformable-DETR's shape)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler, DDP)
# expect:
#   T105 at 47:71 the training loader's 2 workers: a prefetcher made in each epoch's
#        train_one_epoch() takes `iter(loader)` and draws with next(), so each epoch starts a new
#        pass and its workers again. Fix: persistent_workers=True after the argument (47:84).
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class Prefetcher:
    def __init__(self, loader):
        self.it = iter(loader)
        self.stream = torch.cuda.Stream()

    def next(self):
        try:
            x, y = next(self.it)
        except StopIteration:
            return None, None
        with torch.cuda.stream(self.stream):
            return x.cuda(non_blocking=True), y.cuda(non_blocking=True)


def train_one_epoch(model, loader, opt):
    prefetcher = Prefetcher(loader)
    x, y = prefetcher.next()
    while x is not None:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        x, y = prefetcher.next()


def main():
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(4096, 16), torch.randn(4096, 1))
    sampler = DistributedSampler(data)
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = torch.utils.data.BatchSampler(sampler, 32, drop_last=True)
    loader = DataLoader(data, batch_sampler=batches, pin_memory=True, num_workers=2)
    for epoch in range(50):
        sampler.set_epoch(epoch)
        train_one_epoch(model, loader, opt)


if __name__ == "__main__":
    main()
