# stagec fixture: pos_s22_two_projects_each_with_own_utils (the first project's loader: its workers
#   are kept between passes)
# named: beside the other files, as pre-commit passes them
# expect: nothing in this file
# ----
import torch
from torch.utils.data import DataLoader, DistributedSampler


def get_loader():
    data = torch.randn(1000, 4)
    return DataLoader(data, batch_size=8, sampler=DistributedSampler(data), num_workers=8, persistent_workers=True)
