# stagec fixture: neg_s21_loader_held_per_mode (issue 22, class 9, a look-alike: the holder keeps
#                 one of two loaders as `self.data`, chosen by `mode`; the script builds only the
#                 training holder, whose loader keeps its workers, and passes over it every
#                 epoch. The other branch's loader (4 workers, no persistent_workers) belongs to
#                 holders built with another mode, none of them in sight: not reported.)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: nothing
# ----
import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset


class HeldLoader:
    def __init__(self, args, mode):
        dataset = TensorDataset(torch.randn(2048, 8), torch.randn(2048, 1))
        if mode == "train":
            self.sampler = torch.utils.data.distributed.DistributedSampler(dataset)
            self.data = DataLoader(dataset, batch_size=16, sampler=self.sampler, num_workers=args.workers,
                                   persistent_workers=True)
        else:
            self.data = DataLoader(dataset, batch_size=1, shuffle=False, num_workers=args.workers)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    model = DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    holder = HeldLoader(args, "train")
    for epoch in range(20):
        holder.sampler.set_epoch(epoch)
        for x, y in holder.data:
            loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
