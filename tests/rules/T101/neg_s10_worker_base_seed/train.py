# stagec fixture: s10 neg_worker_base_seed (issue 22, class 3; the look-alikes of
#                 pos_s10_worker_base_seed_alike and pos_s10_worker_base_seed_module_level)
# named: on the command line (torchrun scripts; `helpers.py` is imported, not run)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: nothing
#   - the seed mixes in the rank (`args.seed + rank`) in `train_mixed`;
#   - in `train.py`'s `main`, equal seeds, but each loader is safe: its own generator
#     seeded per rank; a worker_init_fn of its own; no workers; a sampler that does not
#     shuffle (an evaluation loader); a dataset whose transforms draw nothing; a dataset
#     that draws only while it is built (`random.shuffle` in `__init__`, in the rank's
#     process); a loader handed to `accelerator.prepare`;
#   - `helpers.py` seeds alike in its `if __name__ == "__main__":` block, which never runs
#     in this program (the module is imported).
# ----
import argparse
import random

import torch
import torch.distributed as dist
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

import helpers

CROP = transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor()])
PLAIN = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor()])


class ShuffledOnce(Dataset):
    def __init__(self, rows):
        self.rows = list(rows)
        random.shuffle(self.rows)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


def init_worker(worker_id):
    seed = torch.initial_seed() % 2**32
    random.seed(seed + dist.get_rank())


def main(args):
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.manual_seed(args.seed)
    crops = datasets.ImageFolder(args.data, transform=CROP)
    plain = datasets.ImageFolder(args.data, transform=PLAIN)
    sampler = DistributedSampler(crops)
    loaders = [
        DataLoader(crops, sampler=sampler, num_workers=8, generator=torch.Generator().manual_seed(args.seed + rank)),
        DataLoader(crops, sampler=sampler, num_workers=8, worker_init_fn=init_worker),
        DataLoader(crops, sampler=sampler, num_workers=0),
        DataLoader(crops, sampler=DistributedSampler(crops, shuffle=False), num_workers=8),
        DataLoader(plain, sampler=DistributedSampler(plain), num_workers=8),
        DataLoader(ShuffledOnce(helpers.rows(args.data)), sampler=sampler, num_workers=8),
    ]
    accelerator = Accelerator()
    prepared = accelerator.prepare(DataLoader(crops, batch_size=32, num_workers=8))
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for loader in loaders + [prepared]:
            for batch in loader:
                pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=str, required=True)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    main(parser.parse_args())
