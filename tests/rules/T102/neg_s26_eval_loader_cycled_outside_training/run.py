# stagec fixture: s26 neg_eval_loader_cycled_outside_training (issue 22, class 3; the look-alike
#                 of pos_s26_loader_cycled_by_itertools: the cycled loader feeds a probe that
#                 trains nothing, and the training loader is told the epoch)
# named: on the command line (`torchrun --nproc_per_node 8 run.py`)
# expect: nothing
# ----
from itertools import cycle, islice

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def probe(model, loader, batches=8):
    model.eval()
    with torch.no_grad():
        return [model.module(x).mean().item() for x, _ in islice(cycle(loader), batches)]


def main():
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
    probe_loader = DataLoader(data, sampler=DistributedSampler(data), batch_size=32)
    train_sampler = DistributedSampler(data)
    train_loader = DataLoader(data, sampler=train_sampler, batch_size=32)
    model = DDP(torch.nn.Linear(8, 1))
    optimizer = torch.optim.AdamW(model.parameters())
    for epoch in range(10):
        train_sampler.set_epoch(epoch)
        model.train()
        for x, y in train_loader:
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            optimizer.zero_grad()
        print(probe(model, probe_loader))


if __name__ == "__main__":
    main()
