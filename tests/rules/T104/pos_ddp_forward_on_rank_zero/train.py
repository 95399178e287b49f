# stagec fixture: pos_ddp_forward_on_rank_zero (issue 22, class 2: "a DDP forward with buffer
#   broadcast"; validation and NaN-logging passes on the chief)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP of a model with BatchNorm)
# context: `evaluate` runs the DDP model with gradients on: every such forward broadcasts the
#          BatchNorm buffers from rank 0, and only rank 0 runs them. The NaN-logging forward
#          runs under no_grad: DDP then broadcasts at most once and skips rank 0's next
#          broadcast, so the counts still match (and every rank exits right after): silent.
# expect:
#   T104 at 31:16 `model(x)` in `evaluate`, which only rank 0 calls: the DDP forward broadcasts the
#        BatchNorm buffers from rank 0 and waits for the other ranks. Fix: `model.module(x)`.
# ----
import math

import torch
import torch.distributed as dist
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        return self.body(x)


def evaluate(model, data):
    model.eval()
    return sum(model(x).mean().item() for x in data)


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    model = nn.parallel.DistributedDataParallel(Net().cuda(), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = [torch.randn(32, 8).cuda() for _ in range(10)]
    for epoch in range(10):
        for x in data:
            loss = model(x).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        if not math.isfinite(loss.item()):
            if rank == 0:
                with torch.no_grad():
                    print(model(x))
            raise SystemExit(1)
        if rank == 0:
            print(evaluate(model, data))


if __name__ == "__main__":
    main()
