# stagec fixture: pos_yacs_subclass_config (entry script)
# named: on the command line with config.py and data.py
# expect: none in this file
# ----
import argparse

import torch
import torch.distributed as dist
from torch import nn

from config import load_config
from data import build_loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cfg", required=True)
    parser.add_argument("opts", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    config = load_config(args.cfg, args.opts)
    dist.init_process_group("nccl")
    loader = build_loader(config)
    model = nn.parallel.DistributedDataParallel(nn.Linear(32, 100).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(config.TRAIN.EPOCHS):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
