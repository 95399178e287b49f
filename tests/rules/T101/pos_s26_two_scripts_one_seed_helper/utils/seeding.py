# stagec fixture: s26 pos_two_scripts_one_seed_helper (issue 22, class 3)
# context: the seeding helper both training scripts import (not named on the command line).
# expect: nothing
# ----
import random

import numpy as np
import torch


def seed_everything(seed):
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)
