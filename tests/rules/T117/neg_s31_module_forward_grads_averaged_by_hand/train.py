# stagec fixture: s31 neg_module_forward_grads_averaged_by_hand (issue 22, class "other": the
#   forward runs the wrapped module, and the code averages the gradients itself before stepping)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def average_gradients(model):
    world = dist.get_world_size()
    for p in model.parameters():
        if p.grad is not None:
            dist.all_reduce(p.grad, op=dist.ReduceOp.SUM)
            p.grad /= world


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    model = DDP(torch.nn.Linear(16, 1).cuda(rank), device_ids=[rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(1000):
        x = torch.randn(8, 16).cuda(rank)
        loss = model.module(x).pow(2).mean()
        loss.backward()
        average_gradients(model.module)
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    main()
