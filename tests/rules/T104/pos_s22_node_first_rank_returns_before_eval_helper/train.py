# stagec fixture: pos_s22_node_first_rank_returns_before_eval_helper (issue 22, class 2; bts' whole
#   shape: the first process of each node returns on a NaN loss, and the step loop goes on to an
#   evaluation helper that all-reduces on every rank and returns its summary on one (the flag it
#   tests is the module's `args`, not the worker's parameter: not known here, but both ways end
#   the helper alike), so the ranks' counts are decided and differ by the return alone)
# named: on the command line (an mp.spawn script, no config)
# expect:
#   T104 at 64:21 `return -1` leaves the function only on ranks where …
# ----
import argparse
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

parser = argparse.ArgumentParser()
parser.add_argument("--rank", type=int, default=-1)
parser.add_argument("--world_size", type=int, default=1)
parser.add_argument("--dist_url", type=str, default="tcp://127.0.0.1:1234")
parser.add_argument("--multiprocessing_distributed", action="store_true")
parser.add_argument("--num_epochs", type=int, default=50)
args = parser.parse_args()


def online_eval(model, gpu, ngpus):
    measures = torch.zeros(2).cuda(gpu)
    with torch.no_grad():
        for _ in range(10):
            measures[0] += model.module(torch.randn(8, 4).cuda(gpu)).mean()
            measures[1] += 1
    if args.multiprocessing_distributed:
        dist.all_reduce(measures)
    if not args.multiprocessing_distributed or gpu == 0:
        measures = measures.cpu()
        print("eval", measures[0] / measures[1])
        return measures
    return None


def main_worker(gpu, ngpus_per_node, args):
    args.gpu = gpu
    if args.distributed:
        if args.dist_url == "env://" and args.rank == -1:
            args.rank = int(os.environ["RANK"])
        if args.multiprocessing_distributed:
            args.rank = args.rank * ngpus_per_node + gpu
        dist.init_process_group(backend="nccl", init_method=args.dist_url, world_size=args.world_size, rank=args.rank)
    model = torch.nn.Linear(4, 1).cuda(gpu)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    epoch = 0
    while epoch < args.num_epochs:
        for step in range(100):
            optimizer.zero_grad()
            loss = model(torch.randn(8, 4).cuda(gpu)).mean()
            loss.backward()
            optimizer.step()
            if not args.multiprocessing_distributed or (args.multiprocessing_distributed and args.rank % ngpus_per_node == 0):
                print(loss)
                if np.isnan(loss.cpu().item()):
                    print("NaN in loss occurred. Aborting training.")
                    return -1
            if step % 50 == 0:
                model.eval()
                measures = online_eval(model, gpu, ngpus_per_node)
                if measures is not None:
                    print(measures)
                model.train()
        epoch += 1


def main():
    ngpus_per_node = torch.cuda.device_count()
    args.distributed = args.world_size > 1 or args.multiprocessing_distributed
    if args.multiprocessing_distributed:
        args.world_size = ngpus_per_node * args.world_size
        mp.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node, args))
    else:
        main_worker(0, ngpus_per_node, args)


if __name__ == "__main__":
    main()
