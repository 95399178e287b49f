# stagec fixture: neg_s12_helper_collective_first (issue 22, class 6: look-alikes of open_lm's shape)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect: nothing. The handlers guard helpers whose collectives all run
#   before anything in them can fail: the barrier of `save_checkpoint`
#   comes before its chief-only write (an OSError there is the chief's own,
#   after the ranks met), and `sync` is a barrier and a print. Every rank
#   has passed every collective of the helper when an error can happen.
# ----
import logging

import torch
import torch.distributed as dist
from torch import nn


def save_checkpoint(model, path):
    dist.barrier()
    if dist.get_rank() == 0:
        torch.save(model.module.state_dict(), path)


def sync(epoch):
    dist.barrier()
    print("epoch", epoch, "done")


def main(args, train_loader):
    dist.init_process_group("nccl")
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        for (x,) in train_loader:
            loss = model(x.cuda()).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        try:
            save_checkpoint(model, f"ckpt_{epoch}.pt")
        except OSError as e:
            logging.warning("could not save: %s", e)
        try:
            sync(epoch)
        except Exception:
            logging.warning("sync failed")
