# stagec fixture: t22g neg_loader_on_one_rank (issue 22: one rank's loader)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP); the evaluation loaders are
#          built only on one process, so there is no "workers × local ranks"
# expect: none
#   - the eval loader under `if rank == 0:` (one process's 8 workers);
#   - the probe loader in the `else` of `if not is_main():` (rank 0 only);
#   - the helper-built loader whose call site is under `if rank in (-1, 0):`.
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def is_main():
    return dist.get_rank() == 0


def make_loader(ds, workers):
    return DataLoader(ds, batch_size=64, num_workers=workers)


def evaluate(model, loader):
    with torch.no_grad():
        for x, y in loader:
            print(nn.functional.cross_entropy(model(x.cuda()), y.cuda()).item())


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank % 8)
    data = TensorDataset(torch.randn(20000, 64), torch.randint(0, 10, (20000,)))
    sampler = DistributedSampler(data)
    train_loader = DataLoader(data, batch_size=128, sampler=sampler, num_workers=0)
    if rank == 0:
        eval_loader = DataLoader(data, batch_size=256, num_workers=8, shuffle=False)
    if not is_main():
        probe_loader = None
    else:
        probe_loader = DataLoader(data, batch_size=256, num_workers=8)
    if rank in (-1, 0):
        held_out = make_loader(data, 8)
    model = nn.parallel.DistributedDataParallel(nn.Linear(64, 10).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, y in train_loader:
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        if rank == 0:
            evaluate(model, eval_loader)
            evaluate(model, probe_loader)
            evaluate(model, held_out)


if __name__ == "__main__":
    main()
