# stagec fixture: s31 pos_loader_reset_by_either_prefetcher (issue 22, class 9; Restormer's and
#   BasicSR's trainer: the loaders come back in a tuple kept whole, then unpacked; the training
#   loader is passed over through a prefetcher, either kind, reset at every epoch)
# named: on the command line (`torchrun --nproc_per_node 8 basicsr/train.py -opt
#   Options/Deraining_Restormer.yml --launcher pytorch`)
# expect: none in this file
# ----
import argparse
import math

import torch
import torch.distributed as dist
from torch.utils.data.distributed import DistributedSampler

from basicsr.data import create_dataloader
from basicsr.data.prefetch_dataloader import CPUPrefetcher, CUDAPrefetcher
from basicsr.utils.options import parse


def parse_options():
    parser = argparse.ArgumentParser()
    parser.add_argument("-opt", type=str, required=True)
    parser.add_argument("--launcher", choices=["none", "pytorch"], default="none")
    args = parser.parse_args()
    opt = parse(args.opt, is_train=True)
    if args.launcher == "none":
        opt["dist"] = False
    else:
        opt["dist"] = True
        dist.init_process_group("nccl")
    return opt


def create_train_val_dataloader(opt):
    train_loader, train_sampler, val_loader = None, None, None
    for phase, dataset_opt in opt["datasets"].items():
        if phase == "train":
            train_set = torch.utils.data.TensorDataset(torch.randn(4096, 8))
            train_sampler = DistributedSampler(train_set)
            train_loader = create_dataloader(
                train_set, dataset_opt, num_gpu=opt["num_gpu"], dist=opt["dist"], sampler=train_sampler
            )
            total_iters = int(opt["train"]["total_iter"])
        elif phase == "val":
            val_set = torch.utils.data.TensorDataset(torch.randn(64, 8))
            val_loader = create_dataloader(val_set, dataset_opt, num_gpu=opt["num_gpu"], dist=opt["dist"])
    return train_loader, train_sampler, val_loader, total_iters


def main():
    opt = parse_options()
    result = create_train_val_dataloader(opt)
    train_loader, train_sampler, val_loader, total_iters = result
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    prefetch_mode = opt["datasets"]["train"].get("prefetch_mode")
    if prefetch_mode is None or prefetch_mode == "cpu":
        prefetcher = CPUPrefetcher(train_loader)
    elif prefetch_mode == "cuda":
        prefetcher = CUDAPrefetcher(train_loader, opt)
    current_iter = 0
    epoch = 0
    while current_iter <= total_iters:
        train_sampler.set_epoch(epoch)
        prefetcher.reset()
        train_data = prefetcher.next()
        while train_data is not None:
            current_iter += 1
            (x,) = train_data
            model(x.cuda()).sum().backward()
            train_data = prefetcher.next()
        epoch += 1


if __name__ == "__main__":
    main()
