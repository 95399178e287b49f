# stagec fixture: pos_two_scripts_each_their_parser (the other script)
# named: on the command line with detect.py
# runtime: multi-rank (init_process_group, DDP)
# expect: none in this file: its worker count comes from a YAML file (`set_defaults(**cfg)`)
# ----
import argparse

import torch
import torch.distributed as dist
import yaml
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def parse():
    config_parser = argparse.ArgumentParser(add_help=False)
    config_parser.add_argument("-c", "--config", default="")
    known, remaining = config_parser.parse_known_args()
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_workers", default=4, type=int)
    if known.config:
        with open(known.config) as f:
            parser.set_defaults(**yaml.safe_load(f))
    return parser.parse_args(remaining)


def main():
    args = parse()
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(4096, 16))
    sampler = DistributedSampler(data)
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(data, sampler=sampler, batch_size=64, num_workers=args.num_workers)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            loss = model(x.cuda()).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
