# stagec fixture: t22g neg_dict_call_kwargs (issue 22: `dict(k=v)` loader options)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler, DDP)
# expect: none
#   - `dict(num_workers=8, persistent_workers=True)`: the workers are kept;
#   - `dict(base, num_workers=8)` and `dict(**base, num_workers=8)`: `base`
#     may hold persistent_workers (not known, so nothing is said);
#   - `dict(num_workers=0)`: no workers.
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def options():
    return {"persistent_workers": True, "pin_memory": True}


def main():
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(20000, 64), torch.randint(0, 10, (20000,)))
    sampler = DistributedSampler(data)
    model = nn.parallel.DistributedDataParallel(nn.Linear(64, 10).cuda())
    base = options()
    kept = dict(batch_size=64, num_workers=8, persistent_workers=True)
    merged = dict(base, num_workers=8)
    splatted = dict(**base, num_workers=8)
    few = dict(batch_size=64, num_workers=0)
    loaders = [
        DataLoader(data, sampler=sampler, **kept),
        DataLoader(data, sampler=sampler, **merged),
        DataLoader(data, sampler=sampler, **splatted),
        DataLoader(data, sampler=sampler, **few),
    ]
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for loader in loaders:
            for x, y in loader:
                model(x.cuda()).sum().backward()


if __name__ == "__main__":
    main()
