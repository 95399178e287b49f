# stagec fixture: pos_s13_shared_loader_two_programs (the shared data module; msn's data_manager)
# named: on the command line with pretrain.py and linear_eval.py
# expect: none in this file (each script's seeding is where its seed is chosen)
# ----
import torch
from torch.utils.data import DataLoader, DistributedSampler


def init_data(dataset, batch_size, world_size, rank, num_workers=8):
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=num_workers, persistent_workers=True)
    return loader, sampler
