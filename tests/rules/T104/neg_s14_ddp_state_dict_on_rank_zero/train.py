# stagec fixture: neg_s14_ddp_state_dict_on_rank_zero
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the same trainer with a DDP model only: every rank holds the whole model, and its
#          state_dict() gathers nothing, so rank 0 may take it alone.
# expect: none
# ----
import os

import torch
import torch.distributed as dist
from torch import nn


class Trainer:
    def __init__(self, local_rank=0, **kwargs):
        try:
            rank = dist.get_rank()
        except:
            rank = 0
        self.rank = rank

    def save_checkpoint(self, epoch, model=None, optim=None):
        if self.rank == 0:
            state = {"epoch": epoch, "state_dict": model.state_dict(), "optimizer": optim.state_dict()}
            torch.save(state, f"ckpt_{epoch}.pt")


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = nn.Linear(8, 1)
    model = nn.parallel.DistributedDataParallel(model.cuda(), device_ids=[local_rank])
    optim = torch.optim.AdamW(model.parameters())
    trainer = Trainer(local_rank=local_rank)
    for epoch in range(10):
        for _ in range(100):
            loss = model(torch.randn(4, 8, device="cuda")).mean()
            optim.zero_grad()
            loss.backward()
            optim.step()
        trainer.save_checkpoint(epoch, model=model, optim=optim)


if __name__ == "__main__":
    main()
