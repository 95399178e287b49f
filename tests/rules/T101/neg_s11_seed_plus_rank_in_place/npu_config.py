# stagec fixture: s11 neg_seed_plus_rank_in_place (the config object that seeds)
# named: on the command line with train.py and meldataset.py
# expect: none in this file (see train.py)
# ----
import os
import random

import numpy as np
import torch


class NPUConfig:
    def __init__(self):
        self.rank = int(os.environ.get("RANK", 0))

    def seed_everything(self, seed=100):
        seed += self.rank
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)


npu_config = NPUConfig()
