# stagec fixture: s8 neg_rebound_off_default_path (issue 22, class 9; the look-alikes of
#                 pos_s8_rebound_off_default_path)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: nothing
#   - `args` rebound from a file on the branch the defaults take (`if not args.fresh:`, a
#     store_true flag off by default): the count is the file's, not known;
#   - `opts` rebound only in the `else` of `if opts.config is None:`, which the defaults do not
#     take: the count kept is the flag's default, 0 — no workers.
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def main(args, opts):
    dist.init_process_group("nccl")
    if not args.fresh:
        args = torch.load(args.state)["args"]
    if opts.config is None:
        opts.note = "defaults"
    else:
        opts = torch.load(opts.config)
    sampler = DistributedSampler(args.data)
    a = DataLoader(args.data, sampler=sampler, num_workers=args.num_workers)
    b = DataLoader(args.data, sampler=sampler, num_workers=opts.num_workers)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x in a:
            pass
        for x in b:
            pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1400)
    parser.add_argument("--num-workers", type=int, default=4)
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--state", type=str, default="last.pt")
    args = parser.parse_args()
    other = argparse.ArgumentParser()
    other.add_argument("--config", type=str, default=None)
    other.add_argument("--num-workers", type=int, default=0)
    main(args, other.parse_args())
