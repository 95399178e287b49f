# stagec fixture: pos_workers_from_run_config_files (issue 22, class 9: a count from the JSON file given at run time; hifi-gan's shape)
# named: on the command line with env.py (a plain `python train.py --config configs/v1.json` that spawns its ranks)
# runtime: mp.spawn(train, nprocs=n): one process per GPU
# expect:
#   T105 at 25:73 h.num_workers: the config file is named at run time (no usable default), and
#        each of the project's two JSON files that set `num_workers` sets 1 or more (4, 6):
#        reported with the first file's line and the count of files, and a fix that holds for
#        any count a file may set (persistent_workers=h.num_workers > 0)
# ----
import argparse
import json

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from env import AttrDict


def train(rank, a, h):
    dist.init_process_group("nccl", world_size=a.gpus, rank=rank)
    data = TensorDataset(torch.randn(4096, 16))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=h.batch_size, sampler=sampler, num_workers=h.num_workers)
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            x.sum()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="")
    parser.add_argument("--gpus", type=int, default=torch.cuda.device_count())
    parser.add_argument("--epochs", type=int, default=100)
    a = parser.parse_args()
    with open(a.config) as f:
        data = f.read()
    h = AttrDict(json.loads(data))
    mp.spawn(train, nprocs=a.gpus, args=(a, h))


if __name__ == "__main__":
    main()
