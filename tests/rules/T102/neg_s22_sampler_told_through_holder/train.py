# stagec fixture: neg_s22_sampler_told_through_holder (the script)
# named: beside the other files, as pre-commit passes them
# expect: nothing in this file
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from tqdm import tqdm

from dataloader import DepthDataLoader


def is_rank_zero(args):
    return args.rank == 0


def train(model, args, epochs=10):
    dataloader = DepthDataLoader(args, "train")
    train_loader = dataloader.data
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        if args.distributed:
            dataloader.train_sampler.set_epoch(epoch)
        for i, batch in tqdm(enumerate(train_loader)) if is_rank_zero(args) else enumerate(train_loader):
            optimizer.zero_grad()
            loss = model(batch[0].cuda()).mean()
            loss.backward()
            optimizer.step()


def main_worker(gpu, ngpus, args):
    args.rank = gpu
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:1", world_size=ngpus, rank=gpu)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 1).cuda(gpu), device_ids=[gpu])
    train(model, args)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=4)
    args = parser.parse_args()
    args.distributed = True
    mp.spawn(main_worker, nprocs=8, args=(8, args))
