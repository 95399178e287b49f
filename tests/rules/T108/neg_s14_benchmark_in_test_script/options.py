# stagec fixture: neg_s14_benchmark_in_test_script (the option parser)
# named: on the command line with test.py
# expect: none in this file (the benchmark switch is in test.py)
# ----
import random

import numpy as np
import torch


def set_random_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def parse_options(opt):
    # The options file sets `manual_seed`; only a file without one gets a random seed.
    seed = opt.get("manual_seed")
    if seed is None:
        seed = random.randint(1, 10000)
        opt["manual_seed"] = seed
    set_random_seed(seed + opt["rank"])
    return opt
