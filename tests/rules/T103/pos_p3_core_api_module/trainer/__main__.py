# stagec fixture project p3_core_api_module: trainer/__main__.py
# `python3 -m trainer ...` (after determined.launch.torch_distributed's `--`) runs this file once
# per slot. expect: no finding in this file.
# ----
import argparse

import torch.distributed as dist

import determined as det
from trainer.main import run


def parse():
    p = argparse.ArgumentParser(prog="trainer")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--shards", default="/data/shards")
    return p.parse_args()


if __name__ == "__main__":
    args = parse()
    dist.init_process_group("nccl")
    with det.core.init(distributed=det.core.DistributedContext.from_torch_distributed()) as core:
        run(core, args.epochs, args.shards)
