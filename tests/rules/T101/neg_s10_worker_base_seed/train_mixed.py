# stagec fixture: s10 neg_worker_base_seed, second script: the seed mixes in the rank
# named: on the command line
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


def main(args):
    dist.init_process_group("nccl")
    torch.manual_seed(args.seed + dist.get_rank())
    data = datasets.ImageFolder(args.data, transform=transforms.RandomResizedCrop(224))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, sampler=sampler, num_workers=8)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=str, required=True)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    main(parser.parse_args())
