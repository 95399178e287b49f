# stagec fixture: s24 pos_worker_base_seed_tuple_registry (issue 22, class 3; review 32b's
#                 DROID-SLAM: every spawned rank seeds torch with 0, and the loader's dataset
#                 comes from a table of tuples of dataset classes (`dataset_map[key][0](…)`),
#                 whose `__getitem__` draws frames from numpy in the workers)
# named: on the command line (`python train.py --gpus 8`, which spawns the ranks)
# expect:
#   T101 at 21:5 worker k of every rank draws the same frames.
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader

from data_readers.factory import dataset_factory


def setup_ddp(gpu, args):
    dist.init_process_group(backend="nccl", init_method="env://", world_size=args.world_size, rank=gpu)
    torch.manual_seed(0)
    torch.cuda.set_device(gpu)


def train(gpu, args):
    setup_ddp(gpu, args)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 1).cuda(), device_ids=[gpu])
    db = dataset_factory(["tartan"], datapath=args.datapath, n_frames=args.n_frames)
    sampler = torch.utils.data.distributed.DistributedSampler(db, shuffle=True, num_replicas=args.world_size, rank=gpu)
    loader = DataLoader(db, batch_size=1, sampler=sampler, num_workers=2, persistent_workers=True)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x in loader:
            model(x.cuda()).sum().backward()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--datapath", default="datasets/TartanAir")
    parser.add_argument("--gpus", type=int, default=4)
    parser.add_argument("--n_frames", type=int, default=7)
    args = parser.parse_args()
    args.world_size = args.gpus
    mp.spawn(train, nprocs=args.gpus, args=(args,))
