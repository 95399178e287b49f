# stagec fixture: pos_nonfinite_loss_skip (issue 22, class 6: Vim's and DeiT-derived trainers' shape)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect:
#   T103 at 22:9 `if not math.isfinite(loss_value):` with `--skip_nonfinite` continues past the DDP
#        backward on the rank whose own loss overflowed; the other ranks wait in its all-reduce
#   T103 at 36:9 `torch.isnan(loss).any()` skips the step of a helper's loop the same way
# ----
import argparse
import math
import sys

import torch
import torch.distributed as dist
from torch import nn


def train_one_epoch(model, loader, opt, args):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            print(f"loss is {loss_value}")
            if args.skip_nonfinite:
                opt.zero_grad()
                continue
            sys.exit(1)
        opt.zero_grad()
        loss.backward()
        opt.step()


def finetune(model, loader, opt):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
        if torch.isnan(loss).any():
            continue
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip_nonfinite", action="store_true")
    args = parser.parse_args()
    dist.init_process_group("nccl")
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = [(torch.randn(4, 8), torch.randn(4, 1))] * 10
    for epoch in range(10):
        train_one_epoch(model, loader, opt, args)
    finetune(model, loader, opt)


if __name__ == "__main__":
    main()
