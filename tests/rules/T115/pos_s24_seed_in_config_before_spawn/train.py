# stagec fixture: s24 pos_seed_in_config_before_spawn (issue 22, class 3; review 32b's
#                 ContrastiveCrop: the config builder seeds every RNG, `main()` builds the config
#                 and then starts the ranks with mp.spawn; the spawned `main_worker` never seeds)
# named: on the command line (`python train.py --config configs/small.py`, spawning the ranks)
# expect:
#   T115 at 23:5 the ranks are fresh interpreters; the seed never reaches them.
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
    dist.init_process_group("nccl", init_method=f"tcp://localhost:{cfg.port}", world_size=world_size, rank=rank)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1).cuda(rank), device_ids=[rank])
    for epoch in range(cfg.epochs):
        model(torch.randn(8, 4).cuda(rank)).sum().backward()


if __name__ == "__main__":
    main()
