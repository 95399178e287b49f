# stagec fixture: s10 pos_worker_base_seed_alike (issue 22, class 3; review 10a's esvit: a
#                 seeding helper called with the same seed on every rank, a DataLoader with
#                 workers and a random augmentation built in a transform class)
# named: on the command line (a torchrun script, its seeding helper and its data module)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect:
#   T101 at 21:5 `utils.fix_random_seeds(args.seed)` seeds torch with 0 on every rank; the
#        loader's 10 workers draw their base seed from that RNG (no generator=, no
#        worker_init_fn), so worker k of every rank crops and flips alike.
# ----
import argparse

import torch.distributed as dist

import utils
from data import build_loader


def main(args):
    dist.init_process_group("nccl")
    utils.fix_random_seeds(args.seed)
    loader = build_loader(args)
    for epoch in range(args.epochs):
        loader.sampler.set_epoch(epoch)
        for images, _ in loader:
            pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=str, required=True)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--num_workers", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    main(parser.parse_args())
