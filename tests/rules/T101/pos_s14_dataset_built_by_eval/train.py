# stagec fixture: pos_s14_dataset_built_by_eval (the entry; HRNet's shape)
# named: on the command line (`python -m torch.distributed.launch --nproc_per_node=4 train.py`)
# context: the dataset class is looked up by name with eval(); the package's one dataset
#          class draws its crops and flips in the workers. Every rank seeds torch with 304.
# expect:
#   T101 at 29:9 the same seed on every rank, workers drawing crops and flips alike
# ----
import argparse
import random

import torch
import torch.distributed as dist
from torch import nn

import datasets


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=304)
    parser.add_argument("--dataset", default="Cityscapes")
    return parser.parse_args()


def main():
    args = parse_args()
    if args.seed > 0:
        random.seed(args.seed)
        torch.manual_seed(args.seed)
    dist.init_process_group("nccl")
    train_dataset = eval("datasets." + args.dataset)(root="data/cityscapes", crop_size=(512, 1024))
    sampler = torch.utils.data.distributed.DistributedSampler(train_dataset)
    loader = torch.utils.data.DataLoader(
        train_dataset, batch_size=4, sampler=sampler, num_workers=4, persistent_workers=True
    )
    model = nn.parallel.DistributedDataParallel(nn.Conv2d(3, 19, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(484):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = model(x.cuda()).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
