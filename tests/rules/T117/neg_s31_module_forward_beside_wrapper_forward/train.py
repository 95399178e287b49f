# stagec fixture: s31 neg_module_forward_beside_wrapper_forward (issue 22, class "other": the
#   step's main forward goes through the wrapper, and an auxiliary loss calls a method of the
#   wrapped module; DDP's forward has armed its hooks for the step, so the backward averages
#   every gradient)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(16, 16)

    def forward(self, x):
        return self.body(x)

    def smoothness(self, x):
        return (self.body(x + 0.01) - self.body(x)).pow(2).mean()


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    model = DDP(Net().cuda(rank), device_ids=[rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(1000):
        x = torch.randn(8, 16).cuda(rank)
        out = model(x)
        loss = out.pow(2).mean() + 0.1 * model.module.smoothness(x)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    main()
