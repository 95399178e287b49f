# named: on the command line, with train.py
# ----
import glob
import os

import torch


def make_model():
    return torch.nn.Linear(2, 2)


def latest_checkpoint_path(dir_path, regex="G_*.pth"):
    f_list = glob.glob(os.path.join(dir_path, regex))
    f_list.sort(key=lambda f: int("".join(filter(str.isdigit, f))))
    return f_list[-1]


def load_checkpoint(checkpoint_path, model, optimizer=None, skip_optimizer=False):
    assert os.path.isfile(checkpoint_path)
    checkpoint_dict = torch.load(checkpoint_path, map_location="cpu")
    iteration = checkpoint_dict["iteration"]
    model.load_state_dict(checkpoint_dict["model"])
    return model, optimizer, 0.0, iteration
