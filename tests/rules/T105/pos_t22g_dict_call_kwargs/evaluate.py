# stagec fixture: t22g pos_dict_call_kwargs (issue 22: `dict(k=v)` loader options)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler, DDP)
# expect:
#   T105 at 35:61 num_workers=args.workers (--workers' default 8) in `dict(...)`,
#        splatted into the training loader; fix: `, persistent_workers=True` in the dict
#   T105 at 36:40 the same count, splatted into the validation loader
# ----
import argparse

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=20)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    world = dist.get_world_size()
    train_set = TensorDataset(torch.randn(20000, 64), torch.randint(0, 10, (20000,)))
    val_set = TensorDataset(torch.randn(2000, 64), torch.randint(0, 10, (2000,)))
    sampler = DistributedSampler(train_set)
    model = nn.parallel.DistributedDataParallel(nn.Linear(64, 10).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    kwargs = dict(
        batch_size=args.batch_size // world,
        num_workers=args.workers,
        pin_memory=True,
    )
    train_loader = DataLoader(train_set, sampler=sampler, **kwargs)
    val_loader = DataLoader(val_set, **kwargs)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in train_loader:
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            for x, y in val_loader:
                print(model(x.cuda()).argmax(1).eq(y.cuda()).float().mean().item())


if __name__ == "__main__":
    main()
