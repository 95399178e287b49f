# stagec fixture: s11 pos_helper_with_idle_runner (issue 22, class 9; Point-MAE as it is: the
#                 loader helper is called from the runner main() starts and from a test runner
#                 nothing in the program calls, which passes on its own parameter)
# named: on the command line with tools/runner.py and tools/builder.py (a torchrun script, its
#        runners and its loader helper)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: none in this file (the loader is reported where tools/builder.py builds it)
# ----
import argparse

import torch.distributed as dist

from tools.runner import run_net


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_workers", type=int, default=8)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    run_net(args, args)


if __name__ == "__main__":
    main()
