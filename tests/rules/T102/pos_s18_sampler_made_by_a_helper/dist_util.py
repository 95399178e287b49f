# expect:
#   T102 at 11:16 the DistributedSampler this helper builds for train.py's loader is never
#        told the epoch.
# ----
import torch.distributed as dist
from torch.utils import data


def data_sampler(dataset, shuffle, distributed):
    if distributed:
        return data.distributed.DistributedSampler(dataset, shuffle=shuffle)
    if shuffle:
        return data.RandomSampler(dataset)
    return data.SequentialSampler(dataset)


def is_primary():
    return not dist.is_initialized() or dist.get_rank() == 0
