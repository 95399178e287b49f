# stagec fixture: h01_pos_shuffle_and_randperm_torchrun
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 pretrain.py --seed 7",
#          resources.slots_per_trial: 8
# runtime: torch.distributed (init_process_group), plain torch DataLoader, no DistributedSampler
# expect:
#   T101 at 45:55 DataLoader(shuffle=True) builds a RandomSampler seeded from the
#        global RNG, which set_seeds(args.seed) seeds identically on every rank.
#        Fix: generator=torch.Generator().manual_seed(args.seed + dist.get_rank()) on the DataLoader.
#   T101 at 56:17 torch.randperm without generator= is the per-epoch sample
#        order of this rank (no rank slicing follows): identical on all ranks.
# ----
import argparse
import random

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader


def set_seeds(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def build_corpus(n: int = 50000, width: int = 128) -> torch.Tensor:
    return torch.randint(0, 1000, (n, width))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()

    dist.init_process_group("nccl")
    local = dist.get_rank() % torch.cuda.device_count()
    torch.cuda.set_device(local)
    set_seeds(args.seed)

    corpus = build_corpus()
    warmup = DataLoader(corpus[:4096], batch_size=32, shuffle=True, num_workers=2)
    model = DistributedDataParallel(nn.Embedding(1000, 64).cuda(), device_ids=[local])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

    for tokens in warmup:
        loss = model(tokens.cuda()).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    for epoch in range(args.epochs):
        order = torch.randperm(len(corpus))
        for start in range(0, len(order), 64):
            tokens = corpus[order[start:start + 64]].cuda()
            loss = model(tokens).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
