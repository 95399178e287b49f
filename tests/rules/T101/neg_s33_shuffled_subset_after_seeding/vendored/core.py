import random

import numpy as np


def set_seed(seed):
    # A vendored library's helper; nothing in this project calls it.
    random.seed(seed)
    np.random.seed(seed)
