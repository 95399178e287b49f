# stagec fixture: s31 pos_yaml_keys_set_on_parsed_args (issue 22, class 9; a medical segmentation
#   trainer: the YAML file the flags choose is copied key by key onto the parsed arguments, so
#   `args.num_workers` is the file's; CBIM-Medical-Image-Segmentation's get_parser)
# named: on the command line (`python train_ddp.py --dataset acdc --model unet --dimension 2d`,
#   which spawns one process per GPU)
# expect:
#   T105 at 50:9 num_workers: 2 or 4 in the two YAML files; the test loader is passed over at
#        every evaluation (the training loader keeps its workers)
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import yaml
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", type=str, default="acdc")
    parser.add_argument("--model", type=str, default="unet")
    parser.add_argument("--dimension", type=str, default="2d")
    parser.add_argument("--gpus", type=int, default=4)
    args = parser.parse_args()
    config_path = "config/%s/%s_%s.yaml" % (args.dataset, args.model, args.dimension)
    with open(config_path, "r") as f:
        config = yaml.load(f, Loader=yaml.SafeLoader)
    for key, value in config.items():
        setattr(args, key, value)
    return args


def main_worker(rank, args):
    dist.init_process_group("nccl", rank=rank, world_size=args.gpus)
    trainset = TensorDataset(torch.randn(1024, 8))
    testset = TensorDataset(torch.randn(64, 8))
    train_sampler = DistributedSampler(trainset)
    train_loader = DataLoader(
        trainset,
        batch_size=args.batch_size,
        sampler=train_sampler,
        num_workers=args.num_workers,
        persistent_workers=args.num_workers > 0,
    )
    test_loader = DataLoader(
        testset,
        batch_size=1,
        sampler=DistributedSampler(testset, shuffle=False),
        num_workers=args.num_workers,
    )
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        for (x,) in train_loader:
            x.sum()
        for (x,) in test_loader:
            x.mean()


if __name__ == "__main__":
    args = get_parser()
    mp.spawn(main_worker, nprocs=args.gpus, args=(args,))
