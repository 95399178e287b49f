# stagec fixture: pos_s22_two_projects_each_with_own_utils (issue 22, class 9: the second project's
#   loader, four workers started again at each pass, found through the import of the script beside
#   it — not through the first project's file of the same module name)
# named: beside the other files, as pre-commit passes them
# expect:
#   T105 at 15:85 num_workers=4 starts 4 worker processes on every rank …
# ----
import torch
from torch.utils.data import DataLoader, DistributedSampler


def get_loader(num_workers):
    data = torch.randn(1000, 4)
    val = torch.randn(100, 4)
    train_loader = DataLoader(data, batch_size=8, sampler=DistributedSampler(data), num_workers=num_workers)
    val_loader = DataLoader(val, batch_size=8, num_workers=0)
    return train_loader, val_loader
