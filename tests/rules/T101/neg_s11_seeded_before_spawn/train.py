# stagec fixture: s11 neg_seeded_before_spawn (issue 22, class 3; BigVGAN as it is: the
#                 launcher seeds torch, then mp.spawn starts the ranks)
# named: on the command line (the training script and its dataset)
# runtime: multi-rank (mp.spawn, init_process_group, DistributedSampler)
# expect: nothing
#   - `torch.manual_seed(h.seed)` runs in the launcher before `mp.spawn(train, …)`: each rank is a
#     new interpreter whose torch RNG starts from a seed of its own, so the loader's workers do
#     not share base seeds across ranks (the ranks seed only CUDA, with `torch.cuda.manual_seed`);
#   - the same seed in `main_helper`, called only by the function that spawns: the launcher's too.
# ----
import argparse
import json

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler

from meldataset import MelDataset


def train(rank, a, h):
    dist.init_process_group("nccl", init_method="tcp://localhost:54321", world_size=h["num_gpus"], rank=rank)
    torch.cuda.manual_seed(h["seed"])
    trainset = MelDataset(h["files"], h["segment_size"])
    sampler = DistributedSampler(trainset)
    loader = DataLoader(trainset, num_workers=4, shuffle=False, sampler=sampler, batch_size=16, persistent_workers=True)
    for epoch in range(h["epochs"]):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


def seed_launcher(h):
    torch.manual_seed(h["seed"])


def main_helper(a, h):
    seed_launcher(h)
    mp.spawn(train, nprocs=h["num_gpus"], args=(a, h))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.json")
    a = parser.parse_args()
    with open(a.config) as f:
        h = json.load(f)
    torch.manual_seed(h["seed"])
    mp.spawn(train, nprocs=h["num_gpus"], args=(a, h))


if __name__ == "__main__":
    main()
