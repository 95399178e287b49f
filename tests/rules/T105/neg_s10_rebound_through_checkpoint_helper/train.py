# stagec fixture: s10 neg_rebound_through_checkpoint_helper (issue 22, class 9; the look-alikes
#                 of pos_s10_rebound_through_checkpoint_helper)
# named: on the command line (a torchrun script and its helper)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: nothing
#   - `args` rebound from the helper's checkpoint on the branch the defaults take (`if not
#     args.fresh:`, a store_true flag off by default): the count is the checkpoint's, not known;
#   - `opts` rebound from it under `if opts.resume:`, a flag with no default stagec can read
#     (`default=resume_default()`): which branch runs is not known.
# ----
import argparse

import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from download import find_model


def resume_default():
    return bool(dist.is_available())


def main(args, opts):
    dist.init_process_group("nccl")
    if not args.fresh:
        args = find_model(args.ckpt)["args"]
    if opts.resume:
        opts = find_model(opts.ckpt)["opts"]
    sampler = DistributedSampler(args.data)
    loader = DataLoader(args.data, sampler=sampler, num_workers=args.num_workers)
    val_loader = DataLoader(args.data, sampler=sampler, num_workers=opts.num_workers)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x in loader:
            pass
        for x in val_loader:
            pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=str, required=True)
    parser.add_argument("--epochs", type=int, default=1400)
    parser.add_argument("--num-workers", type=int, default=4)
    parser.add_argument("--ckpt", type=str, default="last.pt")
    parser.add_argument("--fresh", action="store_true")
    args = parser.parse_args()
    other = argparse.ArgumentParser()
    other.add_argument("--num-workers", type=int, default=4)
    other.add_argument("--ckpt", type=str, default="last.pt")
    other.add_argument("--resume", default=resume_default())
    opts = other.parse_args()
    main(args, opts)
