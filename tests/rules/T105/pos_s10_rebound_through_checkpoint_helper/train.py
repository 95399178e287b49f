# stagec fixture: s10 pos_rebound_through_checkpoint_helper (issue 22, class 9; SiT as it is:
#                 the checkpoint comes from a helper in another module, which rebinds it)
# named: on the command line (a torchrun script and its helper)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect:
#   T105 at 26:53 `args` is rebound from whatever `find_model` returns only under
#        `if args.ckpt is not None:`, which the run with the flags' defaults does not take:
#        the count is the flag's default, 4.
# ----
import argparse

import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from download import find_model


def main(args):
    dist.init_process_group("nccl")
    if args.ckpt is not None:
        ckpt_path = args.ckpt
        state_dict = find_model(ckpt_path)
        args = state_dict["args"]
    sampler = DistributedSampler(args.data)
    loader = DataLoader(args.data, sampler=sampler, num_workers=args.num_workers)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x in loader:
            pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=str, required=True)
    parser.add_argument("--epochs", type=int, default=1400)
    parser.add_argument("--num-workers", type=int, default=4)
    parser.add_argument("--ckpt", type=str, default=None)
    args = parser.parse_args()
    main(args)
