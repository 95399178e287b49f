# stagec fixture: s11 pos_seed_helper_of_another_script (the config object; its seeding method adds the rank)
# named: on the command line with train_vae.py, train_t2v.py, adaptor_utils.py and meldataset.py
# expect: none in this file (see train_vae.py)
# ----
import os
import random

import numpy as np
import torch

from adaptor_utils import all_gather_dp_groups


class NPUConfig:
    def __init__(self):
        self.rank = int(os.environ.get("RANK", 0))

    def seed_everything(self, seed=100):
        seed += self.rank
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)


npu_config = NPUConfig()
