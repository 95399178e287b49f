# stagec fixture: t22a pos_parser_rebound (issue 22, class 9)
# named: on the command line (no config: a torchrun script)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect:
#   T105 at 28:63 the module binds `args` twice (the parser, then its parse_args()); the option
#        read is --num_workers' default 10, on every rank, restarted at each of the 400 epochs.
#        Fix: persistent_workers=True after the argument (28:91).
# ----
import argparse

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def get_args_parser():
    parser = argparse.ArgumentParser("pretrain", add_help=False)
    parser.add_argument("--num_workers", default=10, type=int)
    parser.add_argument("--epochs", default=400, type=int)
    return parser


def main(args):
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(8192, 48))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, sampler=sampler, batch_size=64, num_workers=args.num_workers)
    model = nn.parallel.DistributedDataParallel(nn.Linear(48, 48).cuda())
    opt = torch.optim.AdamW(model.parameters())
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            nn.functional.mse_loss(model(x.cuda()), x.cuda()).backward()
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    args = get_args_parser()
    args = args.parse_args()
    main(args)
