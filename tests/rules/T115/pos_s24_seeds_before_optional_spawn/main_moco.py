# stagec fixture: s24 pos_seeds_before_optional_spawn (issue 22, class 3; review 30b's SSL4EO-S12,
#                 after the ImageNet example: four seeds in `main()` without the determinism
#                 request, then `mp.spawn(main_worker, …)` when `--multiprocessing-distributed`
#                 is given, else a direct call; one finding, on the path that spawns)
# named: on the command line (`python main_moco.py --multiprocessing-distributed --seed 42`)
# expect:
#   T115 at 25:9 the first of the four seeds; the spawned ranks run none of them.
# ----
import argparse
import random

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--multiprocessing-distributed", action="store_true")
    parser.add_argument("--gpu", type=int, default=None)
    args = parser.parse_args()
    if args.seed is not None:
        random.seed(args.seed)
        torch.manual_seed(args.seed)
        torch.cuda.manual_seed_all(args.seed)
        np.random.seed(args.seed)
    ngpus_per_node = torch.cuda.device_count()
    if args.multiprocessing_distributed:
        mp.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node, args))
    else:
        main_worker(args.gpu, ngpus_per_node, args)


def main_worker(gpu, ngpus_per_node, args):
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:23456", world_size=ngpus_per_node, rank=gpu)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1).cuda(gpu), device_ids=[gpu])
    model(torch.randn(8, 4).cuda(gpu)).sum().backward()


if __name__ == "__main__":
    main()
