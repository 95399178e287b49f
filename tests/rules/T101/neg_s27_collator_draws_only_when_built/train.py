# stagec fixture: s27 neg_collator_draws_only_when_built (issue 22, class 3; the collator draws
#                 its vocabulary's order once, when it is built in the rank's own process; in the
#                 workers it only stacks and indexes)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import argparse
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def set_random_seed(seed=22):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


class Molecules(Dataset):
    def __init__(self):
        self.graphs = torch.randn(1024, 16)

    def __len__(self):
        return len(self.graphs)

    def __getitem__(self, i):
        return self.graphs[i]


class MaskingCollator:
    def __init__(self, candi_rate=0.15):
        self.candi_rate = candi_rate
        self.order = np.random.permutation(16)

    def bert_mask(self, n):
        return self.order[: int(n * self.candi_rate)]

    def __call__(self, samples):
        batch = torch.stack(samples)
        return batch, self.bert_mask(batch.shape[1])


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=22)
    args = parser.parse_args()
    torch.distributed.init_process_group(backend="nccl")
    set_random_seed(args.seed)
    collator = MaskingCollator()
    train_dataset = Molecules()
    train_loader = DataLoader(
        train_dataset,
        sampler=DistributedSampler(train_dataset),
        batch_size=32,
        num_workers=8,
        worker_init_fn=seed_worker,
        drop_last=True,
        collate_fn=collator,
        persistent_workers=True,
    )
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1).cuda())
    for epoch in range(10):
        train_loader.sampler.set_epoch(epoch)
        for batch, mask in train_loader:
            model(batch.cuda()).sum().backward()
