# stagec fixture: pos_pinned_torch_without_config (issue 22, class 7: fish-speech's trainer)
# named: on the command line (no config; the repository's pyproject.toml pins torch==2.8.0)
# runtime: multi-rank (init_process_group)
# expect:
#   T107 at 17:5 `use_deterministic_algorithms(True)` with the repository pinned to PyTorch 2.8,
#        which still needs CUBLAS_WORKSPACE_CONFIG, and nothing sets it
# ----
import argparse

import torch
import torch.distributed as dist


def main(args):
    dist.init_process_group("nccl")
    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    model = torch.nn.Linear(8, 8).cuda()
    print(model(torch.randn(2, 8).cuda()))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    main(parser.parse_args())
