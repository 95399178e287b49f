# stagec fixture: s25 neg_listing_in_module_loaded_by_name_sorted (issue 22, class 4; the look-alike
#                 of pos_s25_listing_in_module_loaded_by_name: the task module the runner loads
#                 by name sorts its class folders, their files and the background recordings)
# named: on the command line (`torchrun --nproc_per_node 8 run.py --task commands`)
# ----
import argparse

import torch.distributed as dist

from runner import Runner


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--task", default="commands")
    parser.add_argument("--root", default="/data/commands")
    args = parser.parse_args()
    dist.init_process_group("nccl")
    Runner(args).train()


if __name__ == "__main__":
    main()
