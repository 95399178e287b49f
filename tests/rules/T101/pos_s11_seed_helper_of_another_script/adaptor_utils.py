# stagec fixture: s11 pos_seed_helper_of_another_script (a package helper nothing calls)
# named: on the command line with train_vae.py, train_t2v.py, npu_config.py and meldataset.py
# expect: none in this file (nothing calls its set_random_seed: the seeding reported is the one
#         train_vae.py runs)
# ----
import random

import numpy as np
import torch


def set_random_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def all_gather_dp_groups(tensor):
    return [tensor]
