# stagec fixture: pos_s13_hashseed_after_launcher_spawn (Pointcept's launcher)
# named: on the command line with launch.py (`python train.py --num-gpus 8`)
# context: the entry hands `main_worker` to a launcher; with several GPUs it spawns one process
#          per GPU running `main_func(*cfg)`, with one GPU it calls `main_func(*cfg)` itself.
#          Either way the seeding helper runs after every interpreter of the job has started:
#          the spawn before it reads nothing it assigns.
# expect:
#   T106 at 26:5 PYTHONHASHSEED assigned in set_seed, in each rank's already running interpreter
# ----
import argparse
import os
import random

import numpy as np
import torch

from launch import launch


def set_seed(seed=None):
    if seed is None:
        seed = 0
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)


def main_worker(cfg):
    set_seed(cfg.seed)
    model = torch.nn.Linear(3, 3)
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-gpus", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    launch(main_worker, num_gpus_per_machine=args.num_gpus, cfg=(args,))


if __name__ == "__main__":
    main()
