# stagec fixture: pos_s14_registry_dataset_helper_draws (the augmentation helpers)
# named: on the command line with train.py
# expect: none in this file
# ----
import numpy as np


def random_crop(im, size):
    h, w = im.shape[1:]
    y = np.random.randint(0, h - size + 1)
    x = np.random.randint(0, w - size + 1)
    return im[:, y : y + size, x : x + size]


def horizontal_flip(im, prob=0.5):
    return im[:, :, ::-1] if np.random.uniform() < prob else im
