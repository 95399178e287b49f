# stagec fixture: pos_s21_randperm_prefix_iterated (issue 22, class 3: the first `k` entries of a
#                 permutation drawn from torch's global RNG are this rank's sample order for
#                 the epoch; every rank seeds torch with the same value, so every rank trains
#                 on the same `k` samples in the same order, even though the program builds a
#                 DistributedSampler for its validation set)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# runtime: multi-rank (init_process_group)
# expect:
#   T101 at 32:18 torch.randperm draws from the global RNG, which `torch.manual_seed(args.seed)` seeds identically …
# ----
import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-epoch", type=int, default=1024)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    torch.manual_seed(args.seed)
    data = TensorDataset(torch.randn(4096, 8), torch.randint(0, 4, (4096,)))
    val = TensorDataset(torch.randn(512, 8), torch.randint(0, 4, (512,)))
    val_loader = DataLoader(val, batch_size=64, sampler=DistributedSampler(val, shuffle=False))
    model = DistributedDataParallel(torch.nn.Linear(8, 4).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(4):
        picked = torch.randperm(len(data))[: args.per_epoch]
        for start in range(0, len(picked), 32):
            x, y = data[picked[start : start + 32]]
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            for x, y in val_loader:
                model(x.cuda())


if __name__ == "__main__":
    main()
