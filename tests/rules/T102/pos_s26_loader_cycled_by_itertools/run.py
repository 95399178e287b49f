# stagec fixture: s26 pos_loader_cycled_by_itertools (issue 22, class 3; CodeBERT's code2nl/run.py:
#                 a step loop draws batches with `next()` from `itertools.cycle(train_dataloader)`,
#                 which replays the first pass's batches instead of asking the sampler again)
# named: on the command line (`python -m torch.distributed.launch --nproc_per_node 8 run.py`)
# expect:
#   T102 at 27:25 the DistributedSampler, whose loader `itertools.cycle` replays
# ----
import argparse
from itertools import cycle

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--train_steps", type=int, default=100000)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    train_data = TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
    if args.local_rank == -1:
        train_sampler = RandomSampler(train_data)
    else:
        train_sampler = DistributedSampler(train_data)
    train_dataloader = DataLoader(train_data, sampler=train_sampler, batch_size=32)
    model = DDP(torch.nn.Linear(8, 1).cuda(args.local_rank))
    optimizer = torch.optim.AdamW(model.parameters())
    train_dataloader = cycle(train_dataloader)
    for step in range(args.train_steps):
        x, y = next(train_dataloader)
        loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    main()
