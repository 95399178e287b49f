# stagec fixture: neg_nonfinite_loss_agreed (look-alike of pos_nonfinite_loss_skip)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect: none:
#   - the loss checked is all_reduced first, so every rank skips the same step;
#   - a non-finite loss stops the job (`sys.exit(1)`), it does not skip;
#   - the skip inside `with model.join():` leaves the uneven steps to DDP's join;
#   - a non-finite gradient norm after the backward only skips the optimizer step
# ----
import math
import sys

import torch
import torch.distributed as dist
from torch import nn


def reduce_mean(t):
    t = t.clone()
    dist.all_reduce(t)
    return t / dist.get_world_size()


def train_one_epoch(model, loader, opt):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
        loss_value = reduce_mean(loss.detach()).item()
        if not math.isfinite(loss_value):
            continue
        opt.zero_grad()
        loss.backward()
        opt.step()


def strict(model, loader, opt):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
        if not math.isfinite(loss.item()):
            print("loss is not finite, stopping")
            sys.exit(1)
        opt.zero_grad()
        loss.backward()
        opt.step()


def joined(model, loader, opt):
    with model.join():
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
            if torch.isnan(loss):
                continue
            opt.zero_grad()
            loss.backward()
            opt.step()


def clipped(model, loader, opt):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if not torch.isfinite(norm):
            continue
        opt.step()


def main():
    dist.init_process_group("nccl")
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = [(torch.randn(4, 8), torch.randn(4, 1))] * 10
    for epoch in range(10):
        train_one_epoch(model, loader, opt)
        strict(model, loader, opt)
        joined(model, loader, opt)
        clipped(model, loader, opt)


if __name__ == "__main__":
    main()
