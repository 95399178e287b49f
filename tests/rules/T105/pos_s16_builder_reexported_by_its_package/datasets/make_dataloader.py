# stagec fixture: pos_s16_builder_reexported_by_its_package (loader builder)
# named: on the command line with train.py and processor/processor.py
# runtime: multi-rank (train.py initialises the process group)
# expect:
#   T105 at 21:9 8 workers on every rank, restarted at each of the 120 epochs of do_train
#        (the loader reaches it through the package re-exports)
# ----
import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def make_dataloader(args):
    train_set = TensorDataset(torch.randn(4096, 64), torch.randint(0, 10, (4096,)))
    val_set = TensorDataset(torch.randn(512, 64), torch.randint(0, 10, (512,)))
    sampler = DistributedSampler(train_set)
    train_loader = DataLoader(
        train_set,
        batch_size=64,
        sampler=sampler,
        pin_memory=True,
        num_workers=8,
    )
    val_loader = DataLoader(val_set, batch_size=64, num_workers=0)
    return train_loader, val_loader, 10
