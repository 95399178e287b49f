# stagec fixture: pos_s15_datamodule_linked_into_recipe (the recipe's script)
# named: on the command line (`python recipe/train.py --world-size 4`)
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from datamodule import SpeechDataModule, Utterances
from torch import nn


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--world-size", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=30)
    SpeechDataModule.add_arguments(parser)
    return parser


def run(rank: int, world_size: int, args) -> None:
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)
    model = nn.parallel.DistributedDataParallel(nn.Linear(80, 500).cuda(), device_ids=[rank])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = SpeechDataModule(args)
    sampler = torch.utils.data.DistributedSampler(Utterances(20000), shuffle=True)
    train_dl = data.train_dataloader(sampler)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for feats, labels in train_dl:
            logits = model(feats.cuda()).mean(dim=1)
            loss = nn.functional.cross_entropy(logits, labels.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


def main():
    args = get_parser().parse_args()
    mp.spawn(run, args=(args.world_size, args), nprocs=args.world_size, join=True)


if __name__ == "__main__":
    main()
