# stagec fixture: h05_neg_hashseed_before_spawn
# context: const.yaml entrypoint "python3 launch_local.py --nprocs 4", resources.slots_per_trial: 4,
#          environment.image my-registry.example/team/train:2024-11 (a custom image)
# runtime: a launcher process that starts one fresh interpreter per rank with
#          torch.multiprocessing.spawn (start method "spawn")
# expect: no finding.
#   - PYTHONHASHSEED is assigned before mp.spawn starts new interpreters, which read it at their
#     start-up: the assignment is effective for every rank.
#   - use_deterministic_algorithms(True) without CUBLAS_WORKSPACE_CONFIG in const.yaml, but the
#     image is custom: its own ENV (and its PyTorch version) cannot be read, so stagec is silent.
# ----
import argparse
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


def worker(rank: int, world: int, seed: int) -> None:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29512")
    dist.init_process_group("nccl", rank=rank, world_size=world)
    torch.cuda.set_device(rank)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    model = nn.parallel.DistributedDataParallel(nn.Linear(128, 128).cuda(), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(50):
        loss = model(torch.randn(32, 128, device="cuda")).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.destroy_process_group()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nprocs", type=int, default=torch.cuda.device_count())
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    os.environ["PYTHONHASHSEED"] = str(args.seed)
    mp.spawn(worker, args=(args.nprocs, args.seed), nprocs=args.nprocs, join=True)


if __name__ == "__main__":
    main()
