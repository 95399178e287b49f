# stagec fixture: pos_s14_rank_with_zero_fallback
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the rank is dist.get_rank(), or 0 where no process group is up (a try/except
#          fallback); a barrier under `rank == 0` waits for ranks that never come.
# expect:
#   T104 at 33:13 a barrier on rank 0 only
# ----
import torch
import torch.distributed as dist
from torch import nn


def rank_or_zero():
    try:
        rank = dist.get_rank()
    except Exception:
        rank = 0
    return rank


def main():
    dist.init_process_group("nccl")
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    rank = rank_or_zero()
    for epoch in range(10):
        loss = model(torch.randn(4, 8, device="cuda")).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if rank == 0:
            torch.save(model.module.state_dict(), "ckpt.pt")
            dist.barrier()


if __name__ == "__main__":
    main()
