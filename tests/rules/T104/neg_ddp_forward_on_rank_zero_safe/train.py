# stagec fixture: neg_ddp_forward_on_rank_zero_safe (look-alike of pos_ddp_forward_on_rank_zero)
# named: on the command line with head.py (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP of a model with BatchNorm)
# expect: none: the chief's passes call the wrapped module (`model.module(x)`), the second model
#   is wrapped with `broadcast_buffers=False`, and the third (no batch norm, no buffers in its
#   file; rebound to its wrapper, hifi-gan's shape) has nothing to broadcast; the training
#   forward runs on every rank
# ----
import math

import torch
import torch.distributed as dist
from torch import nn

from head import Head


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        return self.body(x)


def evaluate(model, data):
    with torch.no_grad():
        return sum(model.module(x).mean().item() for x in data)


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    model = nn.parallel.DistributedDataParallel(Net().cuda(), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = [torch.randn(32, 8).cuda() for _ in range(10)]
    probe = nn.parallel.DistributedDataParallel(Net().cuda(), device_ids=[rank], broadcast_buffers=False)
    plain = Head().cuda()
    plain = nn.parallel.DistributedDataParallel(plain, device_ids=[rank]).to("cuda")
    for epoch in range(10):
        for x in data:
            loss = model(x).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        if not math.isfinite(loss.item()):
            if rank == 0:
                with torch.no_grad():
                    print(model.module(x))
            raise SystemExit(1)
        if rank == 0:
            print(evaluate(model, data))
            with torch.no_grad():
                print(probe(data[0]), plain(data[0]))


if __name__ == "__main__":
    main()
