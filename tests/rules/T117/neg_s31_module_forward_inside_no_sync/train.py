# stagec fixture: s31 neg_module_forward_inside_no_sync (issue 22, class "other": the look-alike of
#   pos_s31_unwrapped_when_wrapped whose accumulation micro-steps skip the reduction on purpose,
#   inside `with model.no_sync():`, in a helper; the last micro-step runs through the wrapper)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def accumulate(model, x, accum):
    with model.no_sync():
        loss = model.module(x).pow(2).mean() / accum
        loss.backward()


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    model = DistributedDataParallel(torch.nn.Linear(16, 1).cuda(rank), device_ids=[rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    accum = 4
    for step in range(1000):
        x = torch.randn(8, 16).cuda(rank)
        if (step + 1) % accum != 0:
            accumulate(model, x, accum)
            continue
        loss = model(x).pow(2).mean() / accum
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    main()
