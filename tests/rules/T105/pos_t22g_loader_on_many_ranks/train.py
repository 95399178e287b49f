# stagec fixture: t22g pos_loader_on_many_ranks (issue 22: look-alikes of one rank's loader)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP); the evaluation loaders are
#          built on many ranks despite a rank test in their condition
# expect:
#   T105 at 38:70 the training loader's 2 workers on every rank, restarted at each of the 10 epochs
#   T105 at 22:42 the helper's loader: its call site is under `if rank == 0 or full_eval:`
#   T105 at 40:56 the eval loader under `if rank >= 0:` (every rank)
#   T105 at 42:57 the probe loader in the body of `if not is_main():` (ranks 1..N-1)
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
    full_eval = torch.cuda.device_count() > 4
    torch.cuda.set_device(rank % 8)
    data = TensorDataset(torch.randn(20000, 64), torch.randint(0, 10, (20000,)))
    sampler = DistributedSampler(data)
    train_loader = DataLoader(data, batch_size=128, sampler=sampler, num_workers=2)
    if rank >= 0:
        eval_loader = DataLoader(data, batch_size=256, num_workers=8, shuffle=False)
    if not is_main():
        probe_loader = DataLoader(data, batch_size=256, num_workers=8)
    else:
        probe_loader = None
    if rank == 0 or full_eval:
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
        if True:
            evaluate(model, eval_loader)
            evaluate(model, probe_loader)
            evaluate(model, held_out)


if __name__ == "__main__":
    main()
