import random

import numpy as np
import torch


def set_seeds(cfg, rank):
    seed = cfg["seed"] + rank
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
