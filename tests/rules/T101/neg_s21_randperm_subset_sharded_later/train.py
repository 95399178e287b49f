import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler

import datasets


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=4)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    torch.manual_seed(args.seed)
    train, val = datasets.build(64)
    sampler = DistributedSampler(train, shuffle=True)
    loader = DataLoader(train, batch_size=32, sampler=sampler)
    model = DistributedDataParallel(torch.nn.Linear(8, 4).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
