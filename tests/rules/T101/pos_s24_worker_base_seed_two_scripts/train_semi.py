# stagec fixture: the second script of pos_s24_worker_base_seed_two_scripts
# named: on the command line with the first
# expect:
#   T101 at 23:9 this script's own call of the seeding helper.
#
#
#
#
#
# ----
import argparse

import torch.distributed as dist

from data import build_loader
from utils import set_random_seed


def main(args):
    dist.init_process_group("nccl")
    cfg = {"root": args.root, "crop": 224, "workers": 4}
    if args.seed is not None:
        set_random_seed(args.seed)
    loader = build_loader(cfg)
    for epoch in range(args.epochs):
        loader.sampler.set_epoch(epoch)
        for x, _ in loader:
            pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=str, required=True)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    main(parser.parse_args())
