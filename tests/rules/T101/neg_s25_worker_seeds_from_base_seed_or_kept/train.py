# stagec fixture: s25 neg_worker_seeds_from_base_seed_or_kept (issue 22, class 3; the
#                 look-alikes of pos_s25_worker_seeds_repeat_every_epoch: the training loader's
#                 init function adds torch's per-pass base seed, and the validation loader
#                 keeps its workers alive, so neither repeats its streams each epoch)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
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
    worker_seed = (num_workers * rank + worker_id + seed + torch.initial_seed()) % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)
    torch.manual_seed(worker_seed)


def plain_init(worker_id, num_workers, rank, seed):
    np.random.seed(num_workers * rank + worker_id + seed)


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
    val_set = datasets.ImageFolder("/data/val", augment)
    val_sampler = DistributedSampler(val_set, shuffle=False)
    val_init = partial(plain_init, num_workers=args.num_workers, rank=rank, seed=args.seed)
    val_loader = DataLoader(
        val_set,
        sampler=val_sampler,
        batch_size=64,
        num_workers=args.num_workers,
        worker_init_fn=val_init,
        persistent_workers=True,
    )
    model = torch.nn.Linear(3 * 224 * 224, 10).cuda(local_rank)
    for epoch in range(32):
        sampler.set_epoch(epoch)
        for x, y in loader:
            model(x.flatten(1).cuda(local_rank)).mean().backward()
        with torch.no_grad():
            for x, y in val_loader:
                model(x.flatten(1).cuda(local_rank))


if __name__ == "__main__":
    main()
