# stagec fixture: s11 neg_helper_with_idle_runner (issue 22, class 9; the look-alikes of
#                 pos_s11_helper_with_idle_runner)
# named: on the command line with tools/runner.py and tools/builder.py (a torchrun script, its
#        runners and its loader helper)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: nothing
#   - the call a run makes (`run_net`'s) passes options read from a YAML file at run time, which
#     stagec cannot read: the count is not known, and what the runners nothing calls pass (1 and
#     2) does not stand in for it.
# ----
import argparse

import torch.distributed as dist

from tools.runner import run_net


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", type=str, default="cfg.yaml")
    args = parser.parse_args()
    dist.init_process_group("nccl")
    run_net(args, args)


if __name__ == "__main__":
    main()
