# stagec fixture: s24 neg_seed_again_in_spawned_worker (issue 22, class 3; the look-alike of
#                 pos_s24_seed_in_config_before_spawn: the spawned worker seeds again, with the
#                 rank added, so every rank is seeded)
# named: on the command line (`python train.py --config configs/small.py`, spawning the ranks)
# expect: nothing
#
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from utils.util import set_seed


def get_cfg(args):
    cfg = argparse.Namespace(seed=args.seed, epochs=100, port=29500)
    if args.seed != 0:
        cfg.seed = args.seed
    else:
        cfg.seed = 42
    set_seed(cfg.seed)
    return cfg


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    cfg = get_cfg(args)
    world_size = torch.cuda.device_count()
    mp.spawn(main_worker, nprocs=world_size, args=(world_size, cfg))


def main_worker(rank, world_size, cfg):
    set_seed(cfg.seed + rank)
    dist.init_process_group("nccl", init_method=f"tcp://localhost:{cfg.port}", world_size=world_size, rank=rank)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1).cuda(rank), device_ids=[rank])
    for epoch in range(cfg.epochs):
        model(torch.randn(8, 4).cuda(rank)).sum().backward()


if __name__ == "__main__":
    main()
