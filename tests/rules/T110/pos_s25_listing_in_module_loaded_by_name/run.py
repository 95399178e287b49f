# stagec fixture: s25 pos_listing_in_module_loaded_by_name (issue 22, class 4; review 33b's
#                 s3prl M7–M9: the runner loads the task's module by name with
#                 `importlib.import_module(f"tasks.{task}.expert")`; the task lists its class
#                 folders and their files unsorted, keeps them as the dataset's samples, and
#                 shards them with a sampler wrapper)
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
