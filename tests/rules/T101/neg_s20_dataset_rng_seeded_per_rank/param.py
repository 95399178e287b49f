# stagec fixture: neg_s20_dataset_rng_seeded_per_rank (the options)
# named: on the command line, with data.py and pretrain.py
# context: the same options, but `random`, which the dataset draws from, is seeded per rank
#          (`args.seed + rank`): with no workers each rank draws its own templates, and the
#          worker count is not known to be above 0, so nothing is said
# expect: nothing
# ----
import argparse
import os
import random

import numpy as np
import torch


class Config(object):
    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--num_workers", type=int, default=0)
    parser.add_argument("--local_rank", type=int, default=-1)
    args = Config(**vars(parser.parse_args()))
    torch.manual_seed(args.seed)
    random.seed(args.seed + int(os.environ["RANK"]))
    np.random.seed(args.seed)
    return args
