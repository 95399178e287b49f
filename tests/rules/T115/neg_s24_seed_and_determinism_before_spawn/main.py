# stagec fixture: s24 neg_seed_and_determinism_before_spawn (issue 22, class 3; the ImageNet
#                 example's shape: the seeds sit beside `cudnn.deterministic = True` before the
#                 spawn, which T108 reports with the seeds; T115 leaves that path to it)
# named: on the command line (`python main.py --seed 0 --multiprocessing-distributed`)
# expect: nothing
# ----
import argparse
import random

import torch
import torch.backends.cudnn as cudnn
import torch.distributed as dist
import torch.multiprocessing as mp


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    if args.seed is not None:
        random.seed(args.seed)
        torch.manual_seed(args.seed)
        cudnn.deterministic = True
    ngpus = torch.cuda.device_count()
    mp.spawn(main_worker, nprocs=ngpus, args=(ngpus, args))


def main_worker(gpu, ngpus, args):
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:23456", world_size=ngpus, rank=gpu)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1).cuda(gpu), device_ids=[gpu])
    model(torch.randn(8, 4).cuda(gpu)).sum().backward()


if __name__ == "__main__":
    main()
