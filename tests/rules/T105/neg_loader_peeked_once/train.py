# stagec fixture: neg_loader_peeked_once (look-alike of pos_loader_iterated_by_prefetcher)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler, DDP)
# expect: none: the calibration loader is iterated by `next(iter(loader))` once, before training,
#   and the training loader keeps its workers (persistent_workers=True), though a prefetcher takes
#   `iter()` of it every epoch
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class Prefetcher:
    def __init__(self, loader):
        self.it = iter(loader)

    def __iter__(self):
        for x, y in self.it:
            yield x.cuda(non_blocking=True), y.cuda(non_blocking=True)


def main():
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(4096, 16), torch.randn(4096, 1))
    sampler = DistributedSampler(data)
    calib = DataLoader(data, batch_size=512, num_workers=4)
    x0, _ = next(iter(calib))
    scale = x0.std()
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(data, batch_size=32, sampler=sampler, num_workers=4, persistent_workers=True)
    for epoch in range(50):
        sampler.set_epoch(epoch)
        for x, y in Prefetcher(loader):
            loss = nn.functional.mse_loss(model(x / scale), y)
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
