# stagec fixture: neg_s12_single_pass_through_logger (issue 22, class 3: an iteration-based trainer)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect: nothing. The loader is iterated once, through a logging generator
#   that the `for` header calls a single time (`for batch in
#   logger.log_every(loader, …)`); the training runs by iteration count and
#   no pass repeats, so no epoch is ever seen twice.
# ----
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class MetricLogger:
    def __init__(self, every):
        self.every = every

    def log_every(self, iterable, header):
        start = time.time()
        i = 0
        for obj in iterable:
            yield obj
            if i % self.every == 0:
                print(header, i, time.time() - start)
            i += 1


def train(model, opt, loader, max_iter):
    logger = MetricLogger(10)
    it = 0
    for (x,) in logger.log_every(loader, "train"):
        if it >= max_iter:
            return
        loss = model(x.cuda()).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        it += 1


def main():
    dist.init_process_group("nccl")
    dataset = TensorDataset(torch.randn(100000, 8))
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=16, sampler=sampler, drop_last=True)
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train(model, opt, loader, max_iter=1000)


if __name__ == "__main__":
    main()
