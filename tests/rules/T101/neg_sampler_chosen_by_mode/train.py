# stagec fixture: h01_neg_sampler_chosen_by_mode
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py --seed 3",
#          resources.slots_per_trial: 4
# runtime: torch.distributed when WORLD_SIZE > 1, single process otherwise
# expect: no finding.
#   The random sampling only happens on the single-process path: shuffle=(train_sampler is None)
#   is True only when no DistributedSampler was made, and RandomSampler is chosen only when
#   local_rank == -1. On the distributed path both loaders shard through DistributedSampler,
#   whose shared seed is intentional; set_epoch is called (no T102 either).
# ----
import argparse
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, RandomSampler, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--local_rank", type=int, default=int(os.environ.get("LOCAL_RANK", -1)))
    return p.parse_args()


def main() -> None:
    args = parse()
    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if distributed:
        dist.init_process_group("nccl")
    torch.manual_seed(args.seed)

    labeled = TensorDataset(torch.randn(8000, 20), torch.randint(0, 5, (8000,)))
    unlabeled = TensorDataset(torch.randn(40000, 20))

    train_sampler = DistributedSampler(labeled) if distributed else None
    labeled_loader = DataLoader(labeled, batch_size=64, shuffle=(train_sampler is None), sampler=train_sampler)

    sampler_cls = RandomSampler if args.local_rank == -1 else DistributedSampler
    unlabeled_loader = DataLoader(unlabeled, batch_size=448, sampler=sampler_cls(unlabeled), drop_last=True)

    model = nn.Linear(20, 5)
    if distributed:
        model = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.03)
    for epoch in range(args.epochs):
        if distributed:
            train_sampler.set_epoch(epoch)
            unlabeled_loader.sampler.set_epoch(epoch)
        for (x, y), (u,) in zip(labeled_loader, unlabeled_loader):
            loss = nn.functional.cross_entropy(model(x), y) + 0.0 * model(u).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
