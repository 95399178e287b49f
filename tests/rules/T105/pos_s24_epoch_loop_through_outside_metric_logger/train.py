# stagec fixture: s24 pos_epoch_loop_through_outside_metric_logger (issue 22, class 9; review
#                 32b's dust3r: the epoch function passes over the loader through
#                 `metric_logger.log_every(data_loader, …)` of a `MetricLogger` from a module
#                 the context does not hold (a git submodule left out), which yields each batch)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T105 at 36:85 the argparse default of 8 workers, started again at every epoch.
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

import croco.utils.misc as misc


def train_one_epoch(model, data_loader, optimizer, epoch):
    metric_logger = misc.MetricLogger(delimiter="  ")
    data_loader.sampler.set_epoch(epoch)
    for step, (x,) in enumerate(metric_logger.log_every(data_loader, 10, f"Epoch: [{epoch}]")):
        loss = model(x.cuda()).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_workers", default=8, type=int)
    parser.add_argument("--epochs", default=100, type=int)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    dataset = TensorDataset(torch.randn(1000, 3))
    loader = DataLoader(dataset, sampler=DistributedSampler(dataset), batch_size=4, num_workers=args.num_workers)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 1).cuda())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for epoch in range(args.epochs):
        train_one_epoch(model, loader, optimizer, epoch)


if __name__ == "__main__":
    main()
