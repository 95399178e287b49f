# stagec fixture: s24 neg_flag_draws_seed_after_seeding (issue 22, class 3; the look-alike of
#                 pos_s24_flag_draws_seed_then_seeds: a helper the script calls before the
#                 draw seeds Python's `random` alike on every rank, so every rank draws the
#                 same seed)
# named: on the command line (`torchrun --nproc_per_node 8 train.py --randomized_seed`)
# expect: nothing
#
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
    get_model(0)
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
