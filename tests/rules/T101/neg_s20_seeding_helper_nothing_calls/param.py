# stagec fixture: neg_s20_seeding_helper_nothing_calls (the options)
# named: on the command line, with data.py and pretrain.py
# context: the same options, but the seeding sits in a helper of the package nothing calls
#          (`set_random_seed`, left from another script): no rank runs it, so nothing is said
# expect: nothing
# ----
import argparse
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
    return Config(**vars(parser.parse_args()))


def set_random_seed(seed):
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)
