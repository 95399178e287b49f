# stagec fixture: t22h pos_workers_shared_over_node (issue 22, class 9; third blind review)
# named: on the command line (no config: the script spawns one process per GPU itself)
# runtime: mp.spawn starts one rank per GPU; each rank takes its share of the node's
#          --loader-workers (default 24), rounded up, and builds its loaders from it
# expect:
#   T105 at 39:58 24 workers divided over the node's ranks: each pass over the training
#        loader restarts at least 24 worker processes per node
#   T105 at 40:71 the evaluation loader, the same share, iterated every epoch too
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def build_parser():
    p = argparse.ArgumentParser(description="contrastive pre-training")
    p.add_argument("-j", "--loader-workers", dest="workers", type=int, default=24)
    p.add_argument("--epochs", type=int, default=90)
    p.add_argument("--dist-url", default="tcp://127.0.0.1:29500")
    return p


def evaluate(model, loader, gpu):
    with torch.no_grad():
        return sum(model(x.cuda(gpu)).sum().item() for (x,) in loader)


def run_rank(gpu, gpus, args):
    dist.init_process_group("nccl", init_method=args.dist_url, world_size=gpus, rank=gpu)
    torch.cuda.set_device(gpu)
    args.workers = (args.workers + gpus - 1) // gpus
    train_set = TensorDataset(torch.randn(50000, 32))
    held_out = TensorDataset(torch.randn(5000, 32))
    sampler = DistributedSampler(train_set)
    train_loader = DataLoader(train_set, batch_size=128, num_workers=args.workers, sampler=sampler)
    eval_loader = DataLoader(held_out, batch_size=256, shuffle=False, num_workers=args.workers)
    model = nn.parallel.DistributedDataParallel(nn.Linear(32, 32).cuda(gpu), device_ids=[gpu])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for (x,) in train_loader:
            loss = model(x.cuda(gpu)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, evaluate(model, eval_loader, gpu))


if __name__ == "__main__":
    cli = build_parser().parse_args()
    per_node = torch.cuda.device_count()
    mp.spawn(run_rank, nprocs=per_node, args=(per_node, cli))
