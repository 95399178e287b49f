# stagec fixture: pos_s12_two_loaders_share_kwargs (issue 22, class 9: vicreg's evaluate.py)
# named: on the command line (an mp.spawn script)
# runtime: multi-rank (mp.spawn, init_process_group, DistributedSampler, DDP)
# expect:
#   T105 at 40:61 the training loader's 8 workers, on every rank, restarted each epoch
#   T105 at 41:40 the validation loader's 8 workers, on rank 0 only (it alone iterates
#        it), restarted at each validation while the other ranks wait; both counts
#        come from the one `kwargs` dict, and each finding names its loader.
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", default=8, type=int)
    parser.add_argument("--epochs", default=10, type=int)
    parser.add_argument("--batch-size", default=256, type=int)
    return parser.parse_args()


def main_worker(gpu, args, world_size):
    dist.init_process_group("nccl", rank=gpu, world_size=world_size)
    torch.cuda.set_device(gpu)
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 2).cuda(gpu), device_ids=[gpu])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_set = TensorDataset(torch.randn(10000, 8), torch.randint(0, 2, (10000,)))
    val_set = TensorDataset(torch.randn(1000, 8), torch.randint(0, 2, (1000,)))
    sampler = DistributedSampler(train_set)
    kwargs = dict(
        batch_size=args.batch_size // world_size,
        num_workers=args.workers,
        pin_memory=True,
    )
    train_loader = DataLoader(train_set, sampler=sampler, **kwargs)
    val_loader = DataLoader(val_set, **kwargs)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in train_loader:
            loss = nn.functional.cross_entropy(model(x.cuda(gpu)), y.cuda(gpu))
            opt.zero_grad()
            loss.backward()
            opt.step()
        if dist.get_rank() == 0:
            correct = 0
            with torch.no_grad():
                for x, y in val_loader:
                    correct += (model.module(x.cuda(gpu)).argmax(1) == y.cuda(gpu)).sum().item()
            print(epoch, correct)


def main():
    args = get_args()
    world_size = torch.cuda.device_count()
    mp.spawn(main_worker, (args, world_size), nprocs=world_size)


if __name__ == "__main__":
    main()
