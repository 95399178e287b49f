# stagec fixture: pos_s20_dataset_draws_alike_whatever_the_workers (the options)
# named: on the command line, with data.py and pretrain.py
# context: a recommendation pretraining codebase: the options helper seeds torch, random and
#          numpy with the same seed on every rank, and the worker count passes through a
#          Config(**vars(args)) the analysis does not resolve; the dataset picks its prompt
#          templates with random.randint, in the workers (base seeds drawn from that torch
#          RNG) or, with no workers, in the rank's own process: alike on every rank either way
# expect:
#   T101 at 30:5 `torch.manual_seed(args.seed)` seeds the global RNGs with the same value on every rank, …
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
    args = Config(**vars(parser.parse_args()))
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed)
    return args
