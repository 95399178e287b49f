# stagec fixture: pos_s21_loader_held_by_an_instance (issue 22, class 9: a small holder class
#                 builds the training loader in `__init__` and keeps it as `self.data`; the
#                 script constructs it once and passes over `holder.data` every epoch, so every
#                 rank forks its 4 workers again at each epoch)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect:
#   T105 at 22:91 num_workers=4 starts 4 worker processes on every rank …
# ----
import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset


class TrainLoader:
    def __init__(self, args):
        dataset = TensorDataset(torch.randn(2048, 8), torch.randn(2048, 1))
        self.sampler = torch.utils.data.distributed.DistributedSampler(dataset)
        self.data = DataLoader(dataset, batch_size=args.batch_size, sampler=self.sampler, num_workers=args.workers)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    model = DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    holder = TrainLoader(args)
    for epoch in range(20):
        holder.sampler.set_epoch(epoch)
        for x, y in holder.data:
            loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
