# stagec fixture: neg_s22_loaders_returned_in_a_list_other_entry (look-alike of
#   pos_s22_loaders_returned_in_a_list: the list's first entry, the loader with workers, is passed
#   over once; the entry read every epoch, `loader[1]`, starts no workers)
# named: beside the other files, as pre-commit passes them
# expect: nothing
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
