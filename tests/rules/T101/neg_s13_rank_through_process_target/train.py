# stagec fixture: neg_s13_rank_through_process_target (issue 22, precision: denoising-diffusion-gan's launcher)
# named: on the command line (`python train.py --num_process_per_node 8`)
# context: `train(rank, gpu, args)` is handed to `init_processes`, which calls `fn(rank, gpu, args)`;
#          the ranks start as `Process(target=init_processes, args=(global_rank, …))`, a single
#          process as `init_processes(0, …)`. The seed adds the rank: the rank is not the 0 of
#          the one call in sight, since the Process targets' calls cannot be read.
# expect: none
# ----
import argparse

import torch
import torch.distributed as dist
from torch.multiprocessing import Process
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, transforms


def train(rank, gpu, args):
    torch.manual_seed(args.seed + rank)
    ds = datasets.ImageFolder("/data", transforms.Compose([transforms.RandomResizedCrop(64), transforms.ToTensor()]))
    sampler = DistributedSampler(ds, num_replicas=args.world_size, rank=rank)
    loader = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=4, persistent_workers=True)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 3).cuda(gpu), device_ids=[gpu])
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, y in loader:
            noise = torch.randn_like(x)
            model(x.cuda(gpu) + noise.cuda(gpu)).sum().backward()


def init_processes(rank, size, fn, args):
    dist.init_process_group("nccl", init_method="env://", rank=rank, world_size=size)
    fn(rank, args.local_rank, args)
    dist.barrier()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1024)
    parser.add_argument("--num_process_per_node", type=int, default=1)
    parser.add_argument("--node_rank", type=int, default=0)
    parser.add_argument("--num_proc_node", type=int, default=1)
    parser.add_argument("--local_rank", type=int, default=0)
    args = parser.parse_args()
    args.world_size = args.num_proc_node * args.num_process_per_node
    if args.world_size > 1:
        processes = []
        for rank in range(args.num_process_per_node):
            args.local_rank = rank
            global_rank = rank + args.node_rank * args.num_process_per_node
            p = Process(target=init_processes, args=(global_rank, args.world_size, train, args))
            p.start()
            processes.append(p)
        for p in processes:
            p.join()
    else:
        init_processes(0, args.world_size, train, args)
