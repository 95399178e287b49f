# stagec fixture: s27 neg_registry_name_holds_class_without_draws (issue 22, class 3; the
#                 registry bound to a name also holds a dataset that draws nothing: which one runs is
#                 chosen on the command line, so the draws are not known to happen)
# named: on the command line (`python -m torch.distributed.launch --nproc_per_node 8 main.py --dataset kitti`)
# expect: nothing
# ----
import argparse
import os
import random

import numpy as np
import torch
import torch.distributed as dist

from datasets import __datasets__

parser = argparse.ArgumentParser()
parser.add_argument("--dataset", required=True, choices=__datasets__.keys())
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--epochs", type=int, default=10)
args = parser.parse_args()


def set_random_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


dist.init_process_group(backend="nccl", init_method="env://")
set_random_seed(args.seed)

StereoDataset = __datasets__[args.dataset]
train_dataset = StereoDataset("data/", "lists/train.txt", True)
train_sampler = torch.utils.data.DistributedSampler(train_dataset, num_replicas=dist.get_world_size(), rank=dist.get_rank())
loader = torch.utils.data.DataLoader(train_dataset, 4, sampler=train_sampler, num_workers=2, drop_last=True, persistent_workers=True)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())

for epoch_idx in range(args.epochs):
    train_sampler.set_epoch(epoch_idx)
    for sample in loader:
        model(sample.cuda()).sum().backward()
