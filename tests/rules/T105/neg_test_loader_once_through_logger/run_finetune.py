# stagec fixture: neg_test_loader_once_through_logger
# named: on the command line (`torchrun --nproc_per_node=8 run_finetune.py`)
# context: no experiment config; a logging generator iterates every loader it is given and is
#          called in the epoch loop for the training loader (persistent here); the test loader
#          reaches it only through final_test, run once (VideoMAE's shape): its workers start
#          once per run.
# expect: none
# ----
import argparse
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class MetricLogger:
    def log_every(self, iterable, print_freq):
        for i, obj in enumerate(iterable):
            if i % print_freq == 0:
                print(i)
            yield obj


def train_one_epoch(model, loader, opt, device):
    logger = MetricLogger()
    for images, targets in logger.log_every(loader, 10):
        loss = nn.functional.cross_entropy(model(images.to(device)), targets.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


def final_test(model, loader, device):
    logger = MetricLogger()
    correct = 0
    for images, targets in logger.log_every(loader, 10):
        correct += (model(images.to(device)).argmax(1) == targets.to(device)).sum().item()
    return correct


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_workers", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 4).to(device), device_ids=[device])
    train_set = TensorDataset(torch.randn(4096, 16), torch.randint(0, 4, (4096,)))
    test_set = TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,)))
    train_sampler = DistributedSampler(train_set)
    train_loader = DataLoader(
        train_set, sampler=train_sampler, batch_size=64, num_workers=args.num_workers, persistent_workers=True
    )
    test_loader = DataLoader(
        test_set, sampler=DistributedSampler(test_set, shuffle=False), batch_size=64, num_workers=args.num_workers
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, train_loader, opt, device)
    print(final_test(model, test_loader, device))


if __name__ == "__main__":
    main()
