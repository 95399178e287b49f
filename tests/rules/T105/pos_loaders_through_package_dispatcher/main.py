# stagec fixture: pos_loaders_through_package_dispatcher (entry script)
# named: on the command line with data/__init__.py and data/finetune.py
# expect: none in this file (the validation loader is iterated once, after training)
# ----
import torch
import torch.distributed as dist
from torch import nn

from data import build_loader


def train_one_epoch(model, loader, opt):
    for (x,) in loader:
        loss = model(x.cuda()).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    dist.init_process_group("nccl")
    train, val, train_loader, val_loader = build_loader({"batch_size": 32}, is_pretrain=False)
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(100):
        train_loader.sampler.set_epoch(epoch)
        train_one_epoch(model, train_loader, opt)
    with torch.no_grad():
        for (x,) in val_loader:
            model(x.cuda())


if __name__ == "__main__":
    main()
