# stagec fixture: s24 pos_worker_base_seed_two_scripts (issue 22, class 3; review 29a's U2PL:
#                 two scripts share a data module and a seeding helper, and each calls
#                 the helper with the same seed on every rank)
# named: on the command line (two torchrun scripts, their data module and seeding helper)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect:
#   T101 at 23:9 `set_random_seed(args.seed)` seeds every rank alike; the shared loader's 4
#        workers draw their base seed from it, so worker k of every rank crops alike. Reported
#        at each script's own call, not once in the helper both call.
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
