# stagec fixture: s28 neg_transform_classes_draw_nothing_in_workers (issue 22, class 3; the
#                 look-alikes of pos_s28_transform_class_draws_in_workers)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`, with data.py)
# expect: nothing
#   - the project's transform classes applied in the workers draw nothing (`Pad`, `ToTensor`);
#   - `FixedCrop`'s offsets are drawn once, when data.py is imported in the rank's own process,
#     not where the transform is applied;
#   - `RandomFlip` draws in `__call__`, but nothing builds it.
# ----
import argparse
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from data import BraTS


def main(args):
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed)
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1).cuda())
    train_set = BraTS(args.train_list)
    sampler = DistributedSampler(train_set)
    loader = DataLoader(train_set, sampler=sampler, batch_size=4, num_workers=args.num_workers,
                        drop_last=True, persistent_workers=True)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for image, label in loader:
            model(image.cuda()).sum().backward()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", default=1000, type=int)
    parser.add_argument("--num_workers", default=8, type=int)
    parser.add_argument("--epochs", default=100, type=int)
    parser.add_argument("--train_list", default="train.txt")
    main(parser.parse_args())
