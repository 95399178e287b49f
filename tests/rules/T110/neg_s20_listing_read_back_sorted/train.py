# stagec fixture: neg_s20_listing_read_back_sorted (the script)
# named: on the command line
# ----
import os

import torch
import torch.distributed as dist

import lib as dataset


def main(cfg):
    rank = int(os.environ.get("RANK", -1))
    if rank != -1:
        dist.init_process_group("nccl")
    train_dataset = eval("dataset." + cfg.DATASET.DATASET)(cfg=cfg, is_train=True)
    sampler = torch.utils.data.distributed.DistributedSampler(train_dataset) if rank != -1 else None
    return torch.utils.data.DataLoader(train_dataset, batch_size=8, sampler=sampler, shuffle=sampler is None)
