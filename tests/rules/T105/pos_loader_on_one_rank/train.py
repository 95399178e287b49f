# stagec fixture: pos_loader_on_one_rank (issue 22: one rank's loader; glow-tts' and YOLOP's shape)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP); the evaluation loaders are
#          built only on one process: reported as that rank's workers, not "× local ranks"
# expect:
#   T105 at 39:56 the eval loader under `if rank == 0:` (one process's 8 workers, each epoch)
#   T105 at 43:57 the probe loader in the `else` of `if not is_main():` (rank 0 only)
#   T105 at 22:42 the helper's loader, called only under `if rank in (-1, 0):` with 8
#   (silent: the training loader has no workers)
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
