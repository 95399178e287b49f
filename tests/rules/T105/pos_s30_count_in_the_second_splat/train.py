# stagec fixture: pos_s30_count_in_the_second_splat (issue 22, class 9: a loader built from two
#   option dicts, the worker count in the second; the finding sits on the `**` it came through)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler, DDP)
# expect:
#   T105 at 29:81 `**worker_opts` carries num_workers=8 into the training loader, passed over
#        every epoch
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    dist.init_process_group("nccl")
    train_set = TensorDataset(torch.randn(4096, 16), torch.randint(0, 2, (4096,)))
    sampler = DistributedSampler(train_set)
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 2).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    common = {
        "batch_size": 64,
        "pin_memory": True,
    }
    worker_opts = {
        "num_workers": 8,
        "prefetch_factor": 4,
    }
    loader = DataLoader(train_set, sampler=sampler, drop_last=True, **common, **worker_opts)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
