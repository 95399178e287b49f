# stagec fixture: t22f_pos_seed_helper_one_call_away (helper module)
# expect: none
import random

import numpy as np
import torch


def fix_seeds(seed: int = 31) -> None:
    """Seed every RNG the training touches."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
