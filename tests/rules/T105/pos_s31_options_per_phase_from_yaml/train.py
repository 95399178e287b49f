# stagec fixture: s31 pos_options_per_phase_from_yaml (issue 22, class 9; the image-restoration
#   trainers descended from BasicSR/mmsr: `for phase, dataset_opt in sorted(opt["datasets"].items())`
#   hands each phase's options to the loader factory)
# named: on the command line (`torchrun --nproc_per_node 4 train.py -opt options/train/derain.yml
#   --launcher pytorch`)
# expect: none in this file
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data.distributed import DistributedSampler

import options.options as option
from data import create_dataloader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-opt", type=str, help="Path to the options YAML file.")
    parser.add_argument("--launcher", choices=["none", "pytorch"], default="none")
    args = parser.parse_args()
    opt = option.parse(args.opt, is_train=True)
    opt = option.dict_to_nonedict(opt)
    if args.launcher == "none":
        opt["dist"] = False
    else:
        opt["dist"] = True
        dist.init_process_group(backend="nccl")
    train_sampler = None
    for phase, dataset_opt in sorted(opt["datasets"].items()):
        if phase == "train":
            train_set = torch.utils.data.TensorDataset(torch.randn(4096, 8))
            if opt["dist"]:
                train_sampler = DistributedSampler(train_set)
            train_loader = create_dataloader(train_set, dataset_opt, opt, train_sampler)
        elif phase == "val":
            val_set = torch.utils.data.TensorDataset(torch.randn(64, 8))
            val_loader = create_dataloader(val_set, dataset_opt, opt, None)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    for epoch in range(100):
        if train_sampler is not None:
            train_sampler.set_epoch(epoch)
        for _, (x,) in enumerate(train_loader):
            model(x.cuda()).sum().backward()
        for (x,) in val_loader:
            model(x.cuda())


if __name__ == "__main__":
    main()
