# stagec fixture: neg_s15_worker_init_not_from_base_seed (the helpers)
# named: beside the script, as pre-commit passes both
# ----
import os
import random

import numpy as np
import torch


def worker_init_fn(worker_id):
    # In a worker, torch.initial_seed() is the loader's base seed plus the worker id.
    torch_seed = torch.initial_seed()
    random.seed(torch_seed + worker_id)
    if torch_seed >= 2**32:
        torch_seed = torch_seed % 2**32
    np.random.seed((torch_seed + os.getpid()) % 2**32)


class RandomClipCrop:
    def __init__(self, size: int, frames: int):
        self.size = size
        self.frames = frames

    def __call__(self, clip):
        t = random.randint(0, clip.shape[0] - self.frames)
        y = random.randint(0, clip.shape[2] - self.size)
        x = random.randint(0, clip.shape[3] - self.size)
        return clip[t : t + self.frames, :, y : y + self.size, x : x + self.size]
