# stagec fixture: neg_s17_sampler_told_by_both_scripts (the data module)
# named: on the command line with pretrain.py and probe.py
# context: pos_s17_sampler_dropped_by_one_of_two_scripts, but the probe script keeps the
#          sampler and tells it the epoch too: each program calls set_epoch.
# expect: none
# ----
import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def make_videodataset(batch_size, world_size, rank, num_workers=8):
    dataset = TensorDataset(torch.randn(1000, 8), torch.randint(0, 10, (1000,)))
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
    loader = DataLoader(dataset, sampler=sampler, batch_size=batch_size, num_workers=num_workers,
                        persistent_workers=num_workers > 0)
    return dataset, loader, sampler


def init_data(batch_size, world_size, rank):
    dataset, loader, sampler = make_videodataset(batch_size, world_size, rank)
    return (loader, sampler)
