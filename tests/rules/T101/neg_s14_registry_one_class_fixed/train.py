# stagec fixture: neg_s14_registry_one_class_fixed (the entry)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the same registry and seeding, but the ImageNet class reads pre-cropped images and
#          draws nothing: which class runs is the run's choice, and one of them draws nothing
#          in the workers, so stagec cannot say the workers draw.
# expect: none
# ----
import random

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler

from datasets import Cifar10, ImageNet

RNG_SEED = 1
_DATASETS = {"cifar10": Cifar10, "imagenet": ImageNet}


def construct_loader(name, split, batch_size):
    dataset = _DATASETS[name](split)
    sampler = DistributedSampler(dataset)
    return sampler, DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=8, persistent_workers=True)


def main(name="cifar10"):
    dist.init_process_group("nccl")
    np.random.seed(RNG_SEED)
    torch.manual_seed(RNG_SEED)
    random.seed(RNG_SEED)
    sampler, loader = construct_loader(name, "train", 128)
    model = nn.parallel.DistributedDataParallel(nn.Linear(3 * 32 * 32, 10).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda().flatten(1)), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
