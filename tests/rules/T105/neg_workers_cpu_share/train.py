# stagec fixture: neg_workers_cpu_share (issue 22, class 9; look-alikes: counts derived from the CPU count that can be 0)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: none
# ----
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Clips(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.zeros(1, 16000)


def main():
    dist.init_process_group("nccl")
    train_set, val_set = Clips(10_000), Clips(500)
    sampler = DistributedSampler(train_set)
    train_loader = DataLoader(
        train_set,
        batch_size=16,
        sampler=sampler,
        num_workers=os.cpu_count() // 8,
        pin_memory=True,
    )
    workers = min(4, (os.cpu_count() or 1) - 1)
    val_loader = DataLoader(
        val_set,
        batch_size=16,
        sampler=DistributedSampler(val_set, shuffle=False),
        pin_memory=True,
        num_workers=workers,
    )
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Conv1d(1, 1, 3).cuda())
    opt = torch.optim.Adam(model.parameters())
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for audio in train_loader:
            loss = model(audio.cuda()).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            for audio in val_loader:
                model(audio.cuda())


if __name__ == "__main__":
    main()
