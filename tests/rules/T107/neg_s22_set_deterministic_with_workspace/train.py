# stagec fixture: neg_s22_set_deterministic_with_workspace (look-alike of
#   pos_s22_set_deterministic_legacy_name: the script sets the cuBLAS workspace before any CUDA call)
# named: on the command line (no config)
# runtime: multi-rank (init_process_group)
# expect: nothing
# ----
import argparse
import os
import random

import torch
import torch.distributed as dist

os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"


def main(args):
    dist.init_process_group("nccl")
    seed = args.seed + dist.get_rank()
    torch.manual_seed(seed)
    random.seed(seed)
    torch.set_deterministic(True)
    model = torch.nn.Linear(8, 8).cuda()
    print(model(torch.randn(2, 8).cuda()))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=42)
    main(parser.parse_args())
