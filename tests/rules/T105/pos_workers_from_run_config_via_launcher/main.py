# stagec fixture: pos_workers_from_run_config_via_launcher (the launcher)
# named: on the command line with src/train_lib.py
# expect: none in this file
# ----
import argparse

import torch.distributed as dist
import torch.multiprocessing as mp
import yaml

from src.train_lib import main as run


def process_main(rank, fname, world_size):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    params = None
    with open(fname, "r") as y_file:
        params = yaml.load(y_file, Loader=yaml.FullLoader)
    return run(params)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--fname", type=str, default="configs.yaml")
    parser.add_argument("--gpus", type=int, default=2)
    args = parser.parse_args()
    mp.spawn(process_main, nprocs=args.gpus, args=(args.fname, args.gpus))
