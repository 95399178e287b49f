# stagec fixture: h04_neg_persistent_or_small
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 stage_host.py",
#          resources.slots_per_trial: 6, hyperparameters.hpp_config.pipeline_parallel_degree: 3
# runtime: torch.distributed on a pipeline stage's host
# expect: no finding.
#   - train_loader: num_workers=8 with persistent_workers=True.
#   - eval_loader: num_workers=0, no worker processes to restart.
#   - probe_loader: num_workers=8 but iterated exactly once (no enclosing loop re-creates its
#     iterator), so its workers start once whatever persistent_workers says.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def main(epochs: int = 12) -> None:
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    train_set = TensorDataset(torch.randn(50000, 256), torch.randint(0, 100, (50000,)))
    eval_set = TensorDataset(torch.randn(5000, 256), torch.randint(0, 100, (5000,)))
    sampler = DistributedSampler(train_set)

    train_loader = DataLoader(train_set, batch_size=64, sampler=sampler, num_workers=8, persistent_workers=True)
    eval_loader = DataLoader(eval_set, batch_size=256, num_workers=0)
    probe_loader = DataLoader(train_set, batch_size=1024, num_workers=8)

    mean = torch.zeros(256)
    for x, _ in probe_loader:
        mean += x.sum(0)
    mean /= len(train_set)

    model = nn.parallel.DistributedDataParallel(nn.Linear(256, 100).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in train_loader:
            loss = nn.functional.cross_entropy(model((x - mean).cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            acc = sum((model(x.cuda()).argmax(1) == y.cuda()).sum().item() for x, y in eval_loader)
        if dist.get_rank() == 0:
            print(epoch, acc / len(eval_set))


if __name__ == "__main__":
    main()
