# stagec fixture: pos_config_object_reexported (issue 22, class 9: YOLOP's config)
# named: on the command line with lib/__init__.py, lib/config/__init__.py and lib/config/default.py
# runtime: multi-rank (init_process_group, DistributedSampler, DDP)
# expect:
#   T105 at 30:9 `cfg.WORKERS` is the module-level `_C.WORKERS = 8` of lib/config/default.py,
#        which the package re-exports as `cfg` (`from .default import _C as cfg`) and this script
#        imports by name; nothing merges a file into it
# ----
import argparse

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from lib.config import cfg, update_config


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log_dir", default="")
    args = parser.parse_args()
    update_config(cfg, args)
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(4096, 16), torch.randn(4096, 1))
    sampler = DistributedSampler(data)
    loader = DataLoader(
        data,
        batch_size=64,
        num_workers=cfg.WORKERS,
        sampler=sampler,
    )
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(cfg.TRAIN.END_EPOCH):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
