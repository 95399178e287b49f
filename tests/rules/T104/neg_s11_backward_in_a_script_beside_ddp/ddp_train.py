# stagec fixture: s11 neg_backward_in_a_script_beside_ddp (a DDP example checked in the same run)
# named: on the command line with rpc_reinforce.py (a repository of examples checked whole)
# expect: none in this file
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group("nccl")
    model = DDP(nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(100):
        loss = model(torch.randn(4, 8).cuda()).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
