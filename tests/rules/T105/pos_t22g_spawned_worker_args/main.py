# stagec fixture: t22g pos_spawned_worker_args (issue 22: values through mp.spawn)
# named: on the command line (a plain `python main.py` that spawns its ranks)
# runtime: torch.multiprocessing.spawn starts one process per GPU, each calling
#          main_worker(gpu, args) / eval_worker(gpu, args): the parsed args reach
#          their second parameter, so args.workers is --workers' default 8
# expect:
#   T105 at 31:63 the training loader of main_worker (positional spawn arguments)
#   T105 at 43:52 the evaluation loader of eval_worker (keyword spawn arguments)
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def dataset():
    return TensorDataset(torch.randn(20000, 64), torch.randint(0, 10, (20000,)))


def main_worker(gpu, args):
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:23456",
                            world_size=args.ngpus, rank=gpu)
    torch.cuda.set_device(gpu)
    model = nn.parallel.DistributedDataParallel(nn.Linear(64, 10).cuda(), device_ids=[gpu])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = dataset()
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=64, sampler=sampler, num_workers=args.workers)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


def eval_worker(gpu, args):
    dist.init_process_group("nccl", world_size=args.ngpus, rank=gpu)
    loader = DataLoader(dataset(), batch_size=256, num_workers=args.workers)
    for epoch in range(args.epochs):
        for x, y in loader:
            print(epoch, x.sum().item(), y.sum().item())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--ngpus", type=int, default=torch.cuda.device_count())
    args = parser.parse_args()
    mp.spawn(main_worker, (args,), args.ngpus)
    torch.multiprocessing.spawn(fn=eval_worker, args=(args,), nprocs=args.ngpus)


if __name__ == "__main__":
    main()
