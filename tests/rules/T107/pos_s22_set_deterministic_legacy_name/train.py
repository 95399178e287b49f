# stagec fixture: pos_s22_set_deterministic_legacy_name (issue 22, class 7; mdetr's shape: the
#   PyTorch 1.7–1.8 name of use_deterministic_algorithms, in a repository whose requirements ask only
#   torch>=1.7.0: the name exists only in 1.x releases, all of which need the cuBLAS workspace)
# named: on the command line (no config)
# runtime: multi-rank (init_process_group)
# expect:
#   T107 at 24:5 deterministic algorithms make the first cuBLAS call raise on PyTorch 1.x …
# ----
import argparse
import os
import random

import torch
import torch.distributed as dist




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
