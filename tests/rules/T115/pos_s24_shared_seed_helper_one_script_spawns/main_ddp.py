# stagec fixture: s24 pos_shared_seed_helper_one_script_spawns (issue 22, class 3; review 29b's
#                 AcademiCodec: two scripts share `seed_everything`; this one seeds and then
#                 starts the ranks with mp.spawn, the other runs once per rank under torchrun;
#                 the other script's direct path does not seed this script's ranks)
# named: on the command line with the other script
# expect:
#   T115 at 29:5 this script's seed stays in the launching process.
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from utils import seed_everything


def main_worker(local_rank, ngpus, args):
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29500", world_size=ngpus, rank=local_rank)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1).cuda(local_rank))
    model(torch.randn(8, 4).cuda(local_rank)).sum().backward()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    ngpus = torch.cuda.device_count()
    seed_everything(args.seed)
    mp.spawn(main_worker, nprocs=ngpus, args=(ngpus, args))


if __name__ == "__main__":
    main()
