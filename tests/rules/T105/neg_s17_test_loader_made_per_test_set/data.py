# stagec fixture: neg_s17_test_loader_made_per_test_set (the loader builders)
# named: on the command line with engine.py and train.py
# context: a re-identification framework: the test loader of each test set is built when the
#          evaluation asks for it, inside the evaluation's loop over the test sets, and passed
#          over once there. Each evaluation builds new loaders: persistent_workers could keep
#          nothing.
# expect: none
# ----
import torch
import torch.distributed as dist
from torch.utils.data import BatchSampler, DataLoader, SequentialSampler, TensorDataset


def build_test_loader(dataset_name, batch_size, num_workers=4):
    test_set = TensorDataset(torch.randn(512, 64))
    mini_batch_size = batch_size // dist.get_world_size()
    batch_sampler = BatchSampler(SequentialSampler(test_set), mini_batch_size, False)
    test_loader = DataLoader(
        dataset=test_set,
        batch_sampler=batch_sampler,
        num_workers=num_workers,
        pin_memory=True,
    )
    return test_loader, len(test_set)
