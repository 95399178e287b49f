# stagec fixture: t22a neg_workers_rescaled_per_rank (issue 22, class 9)
# named: on the command line (no config: the script spawns one process per GPU itself)
# expect: none.
#   --workers defaults to 32 for the whole node, but each spawned rank divides it by the GPUs
#   per node, rounded down (args.workers = int(args.workers / ngpus)), before building its
#   loader: a rank's share is 0 where the node has more GPUs than 32, so neither the rank's
#   count nor the node's total is known, and stagec says nothing. (Rounded up, the share is at
#   least 1 and the node starts at least 32: pos_t22h_workers_shared_over_node.)
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def worker(gpu, ngpus, args):
    dist.init_process_group("nccl", init_method="env://", world_size=ngpus, rank=gpu)
    args.workers = int(args.workers / ngpus)
    data = TensorDataset(torch.randn(20000, 64), torch.randint(0, 10, (20000,)))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=64, sampler=sampler, num_workers=args.workers)
    model = nn.parallel.DistributedDataParallel(nn.Linear(64, 10).cuda(gpu), device_ids=[gpu])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda(gpu)), y.cuda(gpu))
            opt.zero_grad()
            loss.backward()
            opt.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=100)
    args = parser.parse_args()
    ngpus = torch.cuda.device_count()
    if ngpus > 1:
        mp.spawn(worker, nprocs=ngpus, args=(ngpus, args))
    else:
        worker(0, 1, args)


if __name__ == "__main__":
    main()
