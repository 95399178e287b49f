# stagec fixture: pos_s14_fsdp_state_dict_on_rank_zero (FunASR's trainer)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the model is wrapped in FSDP when the run asks for it; the trainer's rank (from
#          dist.get_rank(), or 0 where no process group is up) gates the checkpoint, and the
#          full state dict is taken inside: only rank 0 joins its all-gather.
# expect:
#   T104 at 27:52 the FSDP model's state dict, gathered on rank 0 only
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


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


def main(use_fsdp=True):
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = nn.Linear(8, 1)
    if use_fsdp:
        model = FSDP(model, device_id=local_rank)
    else:
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
