# stagec fixture: pos_s22_loaders_returned_in_a_list (issue 22, class 9; SwinUNETR's fine-tuning
#   shape: the helper returns `loader = [train_loader, val_loader]`, the script reads `loader[0]`
#   back and passes over it every epoch, eight workers started again each time)
# named: beside the other files, as pre-commit passes them
# expect:
#   T105 at 22:13 num_workers=8 starts 8 worker processes on every rank …
# ----
import torch
from torch.utils.data import DataLoader, DistributedSampler


def get_loader(test_mode=False):
    data = torch.randn(1000, 4)
    val = torch.randn(100, 4)
    if test_mode:
        loader = DataLoader(val, batch_size=1, num_workers=0)
    else:
        train_loader = DataLoader(
            data,
            batch_size=8,
            sampler=DistributedSampler(data),
            num_workers=8,
            pin_memory=True,
        )
        val_loader = DataLoader(val, batch_size=1, num_workers=0)
        loader = [train_loader, val_loader]
    return loader
