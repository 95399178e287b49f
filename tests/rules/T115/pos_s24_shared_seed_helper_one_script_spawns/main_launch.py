# stagec fixture: the script of pos_s24_shared_seed_helper_one_script_spawns that torchrun starts
#                 once per rank: it calls the shared seeding helper in every rank
# named: on the command line with the other script
# expect: nothing
# ----
import argparse

import torch
import torch.distributed as dist

from utils import seed_everything


def main_worker(local_rank, args):
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1).cuda(local_rank))
    model(torch.randn(8, 4).cuda(local_rank)).sum().backward()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--local_rank", type=int, default=0)
    args = parser.parse_args()
    seed_everything(args.seed)
    main_worker(args.local_rank, args)


if __name__ == "__main__":
    main()
