# stagec fixture: s32 pos_pyg_seed_before_spawn (issue 22, class 3; review 43a's ogb pcqm4m-v2
#                 multi-GPU example: PyG's `seed_everything` seeds `random`, numpy and torch in the
#                 launcher, which then starts the ranks with mp.spawn; `run` never seeds)
# named: on the command line (`python main_gnn.py --num_devices 4`)
# expect:
#   T115 at 31:5 PyG's seed_everything seeds the launcher only; the spawned ranks start unseeded.
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch_geometric import seed_everything


def run(rank, args):
    if args.num_devices > 1:
        dist.init_process_group("nccl", rank=rank, world_size=args.num_devices)
    model = torch.nn.Linear(4, 1).cuda(rank)
    if args.num_devices > 1:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank])
    for epoch in range(args.epochs):
        model(torch.randn(8, 4).cuda(rank)).sum().backward()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_devices", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=100)
    args = parser.parse_args()
    seed_everything(42)
    if args.num_devices > 1:
        mp.spawn(run, args=(args,), nprocs=args.num_devices, join=True)
    else:
        run(0, args)
