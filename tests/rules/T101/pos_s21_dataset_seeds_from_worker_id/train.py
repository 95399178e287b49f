# stagec fixture: pos_s21_dataset_seeds_from_worker_id (the script)
# named: beside datasets.py, as pre-commit passes both
# expect: nothing in this file
# ----
import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler

from datasets import FlowDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_workers", type=int, default=4)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    dataset = FlowDataset([("a.pt", "b.pt")] * 1000)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=args.num_workers,
                        persistent_workers=True)
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
