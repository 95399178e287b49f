# stagec fixture: s9 neg_resume_default_agreed (issue 22, class 6: the look-alikes of a resume
#                 that keeps its default)
# named: on the command line, with utils.py
# runtime: torch.multiprocessing.spawn, DDP
# expect: none
#   - the epoch kept or read is agreed after the `try` (all_reduce with MIN into a new name);
#   - the name is moved on after the `try` as well (`epoch_str += 1` outside it: not followed);
#   - the default is not a constant (read from the config);
#   - the handler re-raises.
# ----
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP

import utils


def main(hps):
    n_gpus = torch.cuda.device_count()
    mp.spawn(run, nprocs=n_gpus, args=(n_gpus, hps))


def train(net, opt, rank, hps):
    for step in range(hps.steps):
        loss = net(torch.randn(8, 4).cuda(rank)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


def run(rank, n_gpus, hps):
    dist.init_process_group("nccl", world_size=n_gpus, rank=rank)
    net = DDP(utils.make_model().cuda(rank), device_ids=[rank])
    opt = torch.optim.AdamW(net.parameters())
    epoch_str = 1
    try:
        _, _, _, epoch_str = utils.load_checkpoint(utils.latest_checkpoint_path(hps.model_dir), net, opt)
    except:
        pass
    start = torch.tensor(epoch_str).cuda(rank)
    dist.all_reduce(start, op=dist.ReduceOp.MIN)
    for epoch in range(int(start.item()), hps.epochs + 1):
        train(net, opt, rank, hps)

    first = 1
    try:
        _, _, _, first = utils.load_checkpoint(utils.latest_checkpoint_path(hps.model_dir), net, opt)
    except:
        pass
    first += 1
    for epoch in range(first, hps.epochs + 1):
        train(net, opt, rank, hps)

    begin = hps.first_epoch
    try:
        _, _, _, begin = utils.load_checkpoint(utils.latest_checkpoint_path(hps.model_dir), net, opt)
    except:
        pass
    for epoch in range(begin, hps.epochs + 1):
        train(net, opt, rank, hps)

    last = 1
    try:
        _, _, _, last = utils.load_checkpoint(utils.latest_checkpoint_path(hps.model_dir), net, opt)
    except:
        print("no checkpoint")
        raise
    for epoch in range(last, hps.epochs + 1):
        train(net, opt, rank, hps)
