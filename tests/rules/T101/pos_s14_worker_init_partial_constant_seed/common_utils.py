# stagec fixture: pos_s14_worker_init_partial_constant_seed (the seeding helpers; OpenPCDet's shape)
# named: on the command line with train.py
# context: the init function adds the worker id to a seed the loader's builder binds with
#          functools.partial: 666 when the run fixes its seed, else None (then it seeds nothing).
# expect:
#   T101 at 17:9 666 + worker id: worker k draws alike on every rank (one finding for the
#                three seeding calls)
# ----
import random

import numpy as np
import torch


def worker_init_fn(worker_id, seed=666):
    if seed is not None:
        random.seed(seed + worker_id)
        np.random.seed(seed + worker_id)
        torch.manual_seed(seed + worker_id)
