# stagec fixture: s24 pos_flag_draws_seed_then_seeds (issue 22, class 3; review 31b's imaginaire:
#                 `--randomized_seed` replaces the parsed seed with a draw from Python's
#                 `random`, which nothing has seeded yet on any rank; the seeding helpers run
#                 only after the draw, and the drawn seed becomes the DistributedSampler's)
# named: on the command line (`torchrun --nproc_per_node 8 train.py --randomized_seed`)
# expect:
#   T114 at 30:21 each rank draws its own seed, so the sampler's permutations differ.
# ----
import argparse
import random

import torch.distributed as dist

from utils import get_model, get_train_dataloader, set_random_seed


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--randomized_seed", action="store_true")
    parser.add_argument("--batch_size", type=int, default=16)
    args = parser.parse_args()
    return args


def main():
    args = parse_args()
    dist.init_process_group("nccl")
    if args.randomized_seed:
        args.seed = random.randint(0, 10000)
    set_random_seed(args.seed, by_rank=True)
    model = get_model(args.seed)
    loader = get_train_dataloader(args.batch_size, args.seed)
    for epoch in range(10):
        loader.sampler.set_epoch(epoch)
        for (x,) in loader:
            model(x.cuda()).sum().backward()


if __name__ == "__main__":
    main()
