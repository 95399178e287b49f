# stagec fixture: neg_fallback_after_raised_read (look-alike of pos_fallback_after_swallowed_read)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect: none: the first handler logs and raises again, so a rank that cannot read the file
#   stops (the launcher ends the job) instead of running on; the second `try` only reads
#   fields of a checkpoint every rank loaded, and the same file fails alike on every rank
# ----
import logging

import torch
import torch.distributed as dist
from torch import nn


def load_checkpoint(path, model, opt):
    try:
        ckpt = torch.load(path, map_location="cpu")
    except Exception as e:
        logging.info("could not read %s: %s", path, e)
        raise

    epoch = 0
    try:
        epoch = ckpt["epoch"]
        model.module.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["opt"])
        del ckpt
    except Exception as e:
        logging.info("could not resume: %s", e)
        epoch = 0
    return (
        model,
        opt,
        epoch,
    )


def main():
    dist.init_process_group("nccl")
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    start_epoch = 0
    (
        model,
        opt,
        start_epoch,
    ) = load_checkpoint("/mnt/ckpt/latest.pt", model, opt)
    for epoch in range(start_epoch, 100):
        x = torch.randn(32, 16).cuda()
        loss = model(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
