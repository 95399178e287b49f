# stagec fixture: neg_s30_workers_on_the_single_process_arm (issue 22, class 9's look-alike:
#   Large-Time-Series-Model's data_provider: the multi-GPU arm keeps its workers alive, the other
#   arm of `if args.use_multi_gpu:` runs in one process)
# named: on the command line (`torchrun --nproc_per_node=8 train.py --use_multi_gpu`, or `python
#   train.py` on one GPU)
# runtime: multi-rank under --use_multi_gpu (init_process_group)
# expect: nothing (the loader without persistent workers is built only where no ranks run)
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def data_provider(args):
    data_set = TensorDataset(torch.randn(4096, 16), torch.randn(4096, 1))
    if args.use_multi_gpu:
        sampler = DistributedSampler(data_set, shuffle=True)
        loader = DataLoader(data_set, batch_size=32, sampler=sampler, num_workers=10, persistent_workers=True)
    else:
        sampler = None
        loader = DataLoader(data_set, batch_size=32, shuffle=True, num_workers=10)
    return sampler, loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--use_multi_gpu", action="store_true", default=False)
    args = parser.parse_args()
    if args.use_multi_gpu:
        dist.init_process_group(backend="nccl")
    model = torch.nn.Linear(16, 1).cuda()
    if args.use_multi_gpu:
        model = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.Adam(model.parameters())
    sampler, loader = data_provider(args)
    for epoch in range(10):
        if sampler is not None:
            sampler.set_epoch(epoch)
        for x, y in loader:
            loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
