# stagec fixture: s9 pos_rank_exits_alone (issue 22, class 2; review 12b's RVC and OpenNMT-py marks,
#                 review 7b's Megatron-DeepSpeed mark: one rank leaves while the others go on
#                 to collectives)
# named: on the command line (processes started with multiprocessing.Process, no config)
# runtime: multi-rank: one multiprocessing.Process per GPU index, init_process_group, DDP
# expect:
#   T104 at 70:9 rank 0 alone ends its process at the last epoch, inside the epoch function: the
#        other ranks start the next epoch and wait in its backward's all-reduce.
#   T104 at 59:17 early stopping decided on rank 0 only: `break` there, the others go on to
#        the next step's all_reduce.
#   T104 at 39:13 `sys.exit` on rank 0 only before a barrier every rank reaches.
#   T104 at 84:13 a rank that skips the rest of its step on its own test: the others run the
#        all_reduce it skips.
# ----
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


def main(args):
    n_gpus = torch.cuda.device_count()
    if n_gpus == 1:
        run(0, 1, args)
        return
    children = []
    for i in range(n_gpus):
        p = mp.Process(target=run, args=(i, n_gpus, args))
        children.append(p)
        p.start()


def check_kernels(args, rank):
    if rank == 0:
        if args.abort_on_unmet_constraints:
            sys.exit("the fused kernels' constraints are not met")
    dist.barrier()


def run(rank, n_gpus, args):
    dist.init_process_group("nccl", world_size=n_gpus, rank=rank)
    check_kernels(args, rank)
    net = DDP(torch.nn.BatchNorm1d(4).cuda(rank), device_ids=[rank])
    opt = torch.optim.AdamW(net.parameters())
    for epoch in range(1, args.epochs + 1):
        if rank == 0:
            train_and_evaluate(rank, epoch, args, net, opt, log=True)
        else:
            train_and_evaluate(rank, epoch, args, net, opt, log=False)
    stopper = EarlyStopper(args.patience)
    for step in range(args.steps):
        loss = train_step(net, opt)
        if step % args.valid_steps == 0 and rank == 0:
            stopper(loss)
            if stopper.has_stopped():
                break


def train_and_evaluate(rank, epoch, args, net, opt, log):
    for batch in range(args.steps_per_epoch):
        loss = net(torch.randn(8, 4)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    if epoch >= args.total_epoch and rank == 0:
        torch.save(net.module.state_dict(), "final.pt")
        os._exit(0)


def train_step(net, opt):
    loss = net(torch.randn(8, 4)).sum()
    loss.backward()
    dist.all_reduce(loss)
    return loss


def reduce_steps(rank, args, stats):
    for step in range(args.steps):
        value = torch.tensor(stats[step])
        if rank == 0 and args.skip_first and step == 0:
            continue
        dist.all_reduce(value)


class EarlyStopper:
    def __init__(self, patience):
        self.patience = patience
        self.bad = 0

    def __call__(self, loss):
        self.bad += 1

    def has_stopped(self):
        return self.bad > self.patience
