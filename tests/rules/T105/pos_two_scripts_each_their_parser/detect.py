# stagec fixture: pos_two_scripts_each_their_parser (issue 22, class 9: FasterViT's two trainers)
# named: on the command line with classify.py (two scripts, neither imports the other)
# runtime: multi-rank (init_process_group, DistributedSampler, DDP)
# expect:
#   T105 at 34:9 --num_workers defaults to 10 in this script's own parser: classify.py's parser,
#        whose defaults come from a YAML file (`set_defaults(**cfg)`), is another program's
# ----
import argparse

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_workers", default=10, type=int)
    parser.add_argument("--epochs", default=50, type=int)
    return parser


def main(args):
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(4096, 16), torch.randn(4096, 1))
    sampler = DistributedSampler(data)
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(
        data,
        sampler=sampler,
        batch_size=64,
        collate_fn=None,
        num_workers=args.num_workers,
    )
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main(get_parser().parse_args())
