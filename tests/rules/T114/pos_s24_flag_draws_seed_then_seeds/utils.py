import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def set_random_seed(seed, by_rank=False):
    if by_rank:
        seed += dist.get_rank()
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def get_train_dataloader(batch_size, seed=0):
    dataset = TensorDataset(torch.randn(1000, 3))
    sampler = DistributedSampler(dataset, seed=seed)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=0)


def get_model(seed):
    set_random_seed(seed, by_rank=False)
    return torch.nn.Linear(3, 1).cuda()
