# stagec fixture: s8 pos_rebound_off_default_path (issue 22, class 9; review 6a's M22, as SiT
#                 takes its flags from the checkpoint it resumes)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect:
#   T105 at 23:53 `args` is rebound from a checkpoint only under `if args.ckpt is not None:`,
#        which the run with the flags' defaults does not take: the count is the flag's
#        default, 4, as for any flag.
# ----
import argparse
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def main(args):
    dist.init_process_group("nccl")
    if args.ckpt is not None:
        state_dict = torch.load(args.ckpt)
        args = state_dict["args"]
    sampler = DistributedSampler(args.data)
    loader = DataLoader(args.data, sampler=sampler, num_workers=args.num_workers)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x in loader:
            pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1400)
    parser.add_argument("--num-workers", type=int, default=4)
    parser.add_argument("--ckpt", type=str, default=None)
    args = parser.parse_args()
    main(args)
