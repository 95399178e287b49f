# stagec fixture: neg_unpinned_torch_without_config (look-alike of pos_pinned_torch_without_config)
# named: on the command line (no config; requirements.txt asks only torch>=2.1.0, and
#        pytorch-lightning<2.0 is another package)
# runtime: multi-rank (init_process_group)
# expect: none: which PyTorch runs this is not known (a lower bound bounds nothing; PyTorch 2.10 and
#   later no longer need the variable)
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
