# stagec fixture: t22c_pos_deterministic_before_spawn
# named: on the command line (a script started as `python launch.py --seed 3`)
# context: no experiment config; `run()` seeds and asks cuDNN for determinism, then starts one
#          rank per GPU with torch.multiprocessing.spawn.
# expect:
#   T108 at 39:9 cudnn.deterministic = True runs only in the launching process: the spawned
#        ranks are fresh interpreters that run `rank_main`, so they train non-deterministically
#        and unseeded (random.seed and torch.manual_seed stay in the parent too).
# ----
import argparse
import random

import torch
import torch.backends.cudnn as cudnn
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


def rank_main(local_rank: int, world: int, steps: int) -> None:
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29533", rank=local_rank, world_size=world)
    torch.cuda.set_device(local_rank)
    model = nn.parallel.DistributedDataParallel(nn.Conv2d(3, 8, 3).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        opt.zero_grad()
        model(torch.randn(4, 3, 32, 32, device="cuda")).mean().backward()
        opt.step()


def run() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--steps", type=int, default=100)
    args = p.parse_args()
    if args.seed is not None:
        random.seed(args.seed)
        torch.manual_seed(args.seed)
        cudnn.deterministic = True
    world = torch.cuda.device_count()
    mp.spawn(rank_main, nprocs=world, args=(world, args.steps))


if __name__ == "__main__":
    run()
