# stagec fixture: pos_s15_workers_shared_in_spawned_caller
# named: on the command line (`python main.py --distributed`: one process per GPU by mp.spawn)
# context: the spawned function shares the node's --n_threads out over its GPUs (rounded up),
#          a count the main process keeps in the namespace (`opt.ngpus_per_node`), then calls
#          the function that builds the loader; each rank keeps at least 1 worker.
# expect:
#   T105 at 34:9 at least 6 workers per node restarted at every epoch
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def get_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_threads", type=int, default=6)
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--n_epochs", type=int, default=100)
    parser.add_argument("--distributed", action="store_true")
    return parser.parse_args()


def get_train_utils(opt):
    data = TensorDataset(torch.randn(50000, 64), torch.randint(0, 10, (50000,)))
    sampler = DistributedSampler(data) if opt.distributed else None
    loader = DataLoader(
        data,
        batch_size=opt.batch_size,
        shuffle=sampler is None,
        num_workers=opt.n_threads,
        sampler=sampler,
    )
    return loader, sampler


def main_worker(index, opt):
    if opt.distributed:
        dist.init_process_group("nccl", init_method="tcp://127.0.0.1:23456", world_size=opt.ngpus_per_node, rank=index)
        opt.batch_size = int(opt.batch_size / opt.ngpus_per_node)
        opt.n_threads = int((opt.n_threads + opt.ngpus_per_node - 1) / opt.ngpus_per_node)
    loader, sampler = get_train_utils(opt)
    model = nn.Linear(64, 10).cuda()
    if opt.distributed:
        model = nn.parallel.DistributedDataParallel(model, device_ids=[index])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(opt.n_epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    opt = get_opt()
    opt.ngpus_per_node = torch.cuda.device_count()
    if opt.distributed:
        mp.spawn(main_worker, nprocs=opt.ngpus_per_node, args=(opt,))
    else:
        main_worker(0, opt)
