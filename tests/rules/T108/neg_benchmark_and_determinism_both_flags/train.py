# stagec fixture: neg_benchmark_and_determinism_both_flags
# named: on the command line (`torchrun --nproc_per_node=8 train.py configs/retina.py`)
# context: no experiment config; benchmarking is on only where the config opts in, and the
#          determinism request only where --deterministic or the config asks (mmdetection's train.py
#          shape): both are the user's options, and the request turns benchmarking off again.
# expect: none
# ----
import argparse
import os
import random

import numpy as np
import torch
import torch.distributed as dist


def set_random_seed(seed, deterministic=False):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    if deterministic:
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False


def load_config(path):
    cfg = {"work_dir": "work_dirs"}
    with open(path) as f:
        exec(f.read(), {}, cfg)
    return cfg


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--deterministic", action="store_true")
    args = parser.parse_args()
    cfg = load_config(args.config)
    if cfg.get("cudnn_benchmark", False):
        torch.backends.cudnn.benchmark = True
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    if args.seed is not None:
        set_random_seed(args.seed, deterministic=args.deterministic or cfg.get("deterministic"))


if __name__ == "__main__":
    main()
