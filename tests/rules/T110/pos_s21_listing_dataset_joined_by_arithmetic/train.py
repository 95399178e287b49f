# stagec fixture: pos_s21_listing_dataset_joined_by_arithmetic (the script)
# named: beside datasets.py, as pre-commit passes both
# expect: nothing in this file
# ----
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler

from datasets import build_train_dataset


def main():
    dist.init_process_group("nccl")
    train_dataset = build_train_dataset()
    sampler = DistributedSampler(train_dataset)
    loader = DataLoader(train_dataset, batch_size=8, sampler=sampler, num_workers=4, persistent_workers=True)
    model = DistributedDataParallel(torch.nn.Conv2d(3, 2, 3).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for a, b in loader:
            loss = (model(a.cuda()) - model(b.cuda())).abs().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
