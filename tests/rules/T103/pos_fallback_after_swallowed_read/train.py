# stagec fixture: pos_fallback_after_swallowed_read (issue 22, class 6: jepa's shape)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect:
#   T103 at 29:5 the second handler falls back to `epoch = 0` when the checkpoint's fields cannot
#        be read; they cannot be when the first `try`'s `torch.load` failed on this rank (only
#        logged there, so `ckpt` is unbound): that rank loops `range(start_epoch, 100)` from 0
#        while the others resume, and the job hangs in the DDP backward's all-reduce.
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
