# stagec fixture: s25 pos_worker_seeds_repeat_every_epoch (issue 22, class 3; review 33a's
#                 unicom M14, mmdetection's worker_init_fn: each worker is seeded from the
#                 rank, the worker id and the run's seed, and the loader restarts its workers
#                 at every epoch, so each epoch's workers draw what the last epoch's drew)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T101 at 25:5 the seed has nothing that changes from one pass to the next.
# ----
import argparse
import os
import random
from functools import partial

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, transforms


def worker_init_fn(worker_id, num_workers, rank, seed):
    # The seed of each worker equals to
    # num_worker * rank + worker_id + user_seed
    worker_seed = num_workers * rank + worker_id + seed
    np.random.seed(worker_seed)
    random.seed(worker_seed)
    torch.manual_seed(worker_seed)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=2048)
    parser.add_argument("--num_workers", type=int, default=8)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    local_rank = int(os.environ["LOCAL_RANK"])
    augment = transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor()])
    train_set = datasets.ImageFolder("/data/train", augment)
    sampler = DistributedSampler(train_set)
    init_fn = partial(worker_init_fn, num_workers=args.num_workers, rank=rank, seed=args.seed)
    loader = DataLoader(
        train_set,
        sampler=sampler,
        batch_size=64,
        num_workers=args.num_workers,
        worker_init_fn=init_fn,
        pin_memory=True,
        drop_last=True,
    )
    model = torch.nn.Linear(3 * 224 * 224, 10).cuda(local_rank)
    for epoch in range(32):
        sampler.set_epoch(epoch)
        for x, y in loader:
            model(x.flatten(1).cuda(local_rank)).mean().backward()


if __name__ == "__main__":
    main()
