# stagec fixture: s9 neg_every_rank_leaves (issue 22, class 2: the look-alikes of a rank that
#                 leaves alone)
# named: on the command line (processes started with multiprocessing.Process, no config)
# runtime: multi-rank: one multiprocessing.Process per GPU index, init_process_group, DDP
# expect: none
#   - a stop decided on rank 0 and broadcast: every rank breaks together;
#   - a step limit every rank reaches alike (`if step >= args.steps: break`);
#   - rank 0 exits after the loop, where no collective follows;
#   - an error raised on rank 0 (an error path, not a way to leave);
#   - the epoch function called in both arms of a rank test (each rank runs it once): no DDP
#     forward on one rank only either;
#   - a `return` on the other ranks in a helper with no collective after it;
#   - both arms of a rank test exit.
# ----
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


def main(args):
    n_gpus = torch.cuda.device_count()
    for i in range(n_gpus):
        mp.Process(target=run, args=(i, n_gpus, args)).start()


def run(rank, n_gpus, args):
    dist.init_process_group("nccl", world_size=n_gpus, rank=rank)
    if rank == 0 and not os.path.isdir(args.data):
        raise SystemExit(f"no data at {args.data}")
    net = DDP(torch.nn.BatchNorm1d(4).cuda(rank), device_ids=[rank])
    opt = torch.optim.AdamW(net.parameters())
    for epoch in range(1, args.epochs + 1):
        if rank == 0:
            train_and_evaluate(rank, epoch, args, net, opt, log=True)
        else:
            train_and_evaluate(rank, epoch, args, net, opt, log=False)
    for step in range(args.steps):
        loss = train_step(net, opt)
        stop = [False]
        if rank == 0:
            stop[0] = loss.item() < args.target
        dist.broadcast_object_list(stop, src=0)
        if stop[0]:
            break
        if step >= args.max_steps:
            break
    save(rank, net)
    if rank == 0:
        torch.save(net.module.state_dict(), "final.pt")
        sys.exit(0)


def train_and_evaluate(rank, epoch, args, net, opt, log):
    for batch in range(args.steps_per_epoch):
        loss = net(torch.randn(8, 4)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if rank == 0 and not torch.isfinite(loss):
            raise RuntimeError("the loss diverged")
    if log and rank == 0:
        print(epoch, loss.item())


def train_step(net, opt):
    loss = net(torch.randn(8, 4)).sum()
    loss.backward()
    dist.all_reduce(loss)
    return loss


def save(rank, net):
    if rank != 0:
        return
    torch.save(net.module.state_dict(), "last.pt")


def finish(rank):
    dist.barrier()
    if rank == 0:
        os._exit(0)
    else:
        os._exit(0)
