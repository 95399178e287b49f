# stagec fixture: s11 pos_seeded_before_fork (issue 22, class 3; the look-alike of
#                 neg_s11_seeded_before_spawn that does share the seed)
# named: on the command line (the training script and its dataset)
# runtime: multi-rank (start_processes, init_process_group, DistributedSampler)
# expect:
#   T101 at 39:5 `torch.manual_seed(h["seed"])` runs in the launcher, but
#        `start_processes(…, start_method="fork")` forks the ranks from it: each starts with
#        the launcher's RNG state, so the loader's workers draw alike across ranks.
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.json")
    a = parser.parse_args()
    with open(a.config) as f:
        h = json.load(f)
    torch.manual_seed(h["seed"])
    mp.start_processes(train, nprocs=h["num_gpus"], args=(a, h), start_method="fork")


if __name__ == "__main__":
    main()
