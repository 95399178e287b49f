# stagec fixture: s31 neg_yaml_keys_set_on_parsed_args_zero (issue 22, class 9; the look-alike of
#   pos_s31_yaml_keys_set_on_parsed_args where one model's config starts no workers: a count some
#   file of the project sets to 0 is not reported)
# named: on the command line (`python train_ddp.py --dataset acdc --model unet --dimension 2d`,
#   which spawns one process per GPU)
# expect: nothing
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
