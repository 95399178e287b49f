# stagec fixture: neg_s35_eval_loader_through_logger_shared_with_training (issue 22, review 46b: Torch-Pruning's reproduce/main_imagenet.py)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect: nothing
#   the evaluation loader's DistributedSampler shuffles (its default) and is
#   never told the epoch, but its batches only reach `evaluate`, which trains
#   nothing: it passes through the same `log_every` generator as the training
#   loader, whose sampler is told the epoch. Which loop consumes the generator
#   is asked at the call the evaluation loader goes through, not at every call.
# ----
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class MetricLogger:
    def __init__(self, every):
        self.every = every

    def log_every(self, iterable, every, header=""):
        start = time.time()
        for i, obj in enumerate(iterable):
            yield obj
            if i % every == 0:
                print(header, i, time.time() - start)


def train_one_epoch(model, criterion, opt, data_loader):
    logger = MetricLogger(10)
    model.train()
    for x, y in logger.log_every(data_loader, 10, "train"):
        loss = criterion(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()


def evaluate(model, criterion, data_loader):
    logger = MetricLogger(10)
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in logger.log_every(data_loader, 100, "test"):
            total += criterion(model(x.cuda()), y.cuda()).item()
    return total


def main():
    dist.init_process_group("nccl")
    train_set = TensorDataset(torch.randn(100000, 8), torch.randn(100000, 1))
    test_set = TensorDataset(torch.randn(1000, 8), torch.randn(1000, 1))
    train_sampler = DistributedSampler(train_set)
    test_sampler = DistributedSampler(test_set)
    data_loader = DataLoader(train_set, batch_size=16, sampler=train_sampler)
    data_loader_test = DataLoader(test_set, batch_size=16, sampler=test_sampler)
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    criterion = nn.MSELoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, criterion, opt, data_loader)
        evaluate(model, criterion, data_loader_test)


if __name__ == "__main__":
    main()
