# stagec fixture: neg_s15_dict_entry_read_once
# named: on the command line (`torchrun --nproc_per_node=8 main.py`)
# context: the training loader keeps its workers (persistent_workers=True); the test loader is
#          stored under its own key, and `loaders["test"]` is passed over once, after training.
# expect: none
# ----
import argparse

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def train_one_epoch(model, opt, loader):
    for points, labels in loader:
        loss = nn.functional.cross_entropy(model(points.cuda()), labels.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()


def do_train(args, model, opt, loaders):
    for epoch in range(args.max_epoch):
        loaders["train_sampler"].set_epoch(epoch)
        train_one_epoch(model, opt, loaders["train"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--max_epoch", type=int, default=720)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    datasets = {s: TensorDataset(torch.randn(2000, 256), torch.randint(0, 18, (2000,))) for s in ["train", "test"]}
    model = nn.parallel.DistributedDataParallel(nn.Linear(256, 18).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
    loaders = {}
    sampler = DistributedSampler(datasets["train"])
    loaders["train"] = DataLoader(
        datasets["train"], sampler=sampler, batch_size=args.batch_size, num_workers=args.workers, persistent_workers=True
    )
    loaders["train_sampler"] = sampler
    loaders["test"] = DataLoader(
        datasets["test"],
        sampler=DistributedSampler(datasets["test"], shuffle=False),
        batch_size=args.batch_size,
        num_workers=args.workers,
    )
    do_train(args, model, opt, loaders)
    with torch.no_grad():
        for points, labels in loaders["test"]:
            model(points.cuda())


if __name__ == "__main__":
    main()
