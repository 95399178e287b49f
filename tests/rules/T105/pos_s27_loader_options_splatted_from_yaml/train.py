# stagec fixture: s27 pos_loader_options_splatted_from_yaml (issue 22, class 9; SoftGroup's
#                 shape: the YAML config, wrapped in a Munch, hands the loader factory its options
#                 as `**cfg.dataloader.train`)
# named: on the command line (`torchrun --nproc_per_node 8 train.py configs/scannet.yaml --dist`)
# ----
import argparse

import torch
import torch.distributed as dist
import yaml
from munch import Munch

from data import build_dataloader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("--dist", action="store_true")
    args = parser.parse_args()
    cfg_txt = open(args.config, "r").read()
    cfg = Munch.fromDict(yaml.safe_load(cfg_txt))
    if args.dist:
        dist.init_process_group("nccl")
    train_set = torch.utils.data.TensorDataset(torch.randn(4096, 8))
    train_loader = build_dataloader(train_set, training=True, dist=args.dist, **cfg.dataloader.train)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    for epoch in range(1, cfg.epochs + 1):
        train_loader.sampler.set_epoch(epoch)
        for (x,) in train_loader:
            model(x.cuda()).sum().backward()


if __name__ == "__main__":
    main()
