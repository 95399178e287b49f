# stagec fixture: s24 pos_workers_through_item_holder_renewed_on_schedule (issue 22, class 9;
#                 review 29a's STCN: the count is `para['num_workers']` of a holder whose
#                 `__getitem__` reads `self.args[key]` (`vars(parser.parse_args())`), and the
#                 loader is made again only at the scheduled epochs where the frame skip grows)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T105 at 30:70 8 workers (the argparse default) per rank, stopped and started at every
#        epoch; the renewals at `increase_skip_epoch` leave every other epoch over the kept loader.
# ----
import math

import torch
import torch.distributed as distributed
from torch.utils.data import DataLoader, TensorDataset

from hyper_para import HyperParameters

distributed.init_process_group(backend="nccl")
para = HyperParameters()
para.parse()
local_rank = distributed.get_rank()


def make_dataset(max_skip):
    return TensorDataset(torch.randn(4096, 8) * max_skip)


def renew_loader(max_skip):
    sampler = torch.utils.data.distributed.DistributedSampler(make_dataset(max_skip), rank=local_rank, shuffle=True)
    loader = DataLoader(make_dataset(max_skip), 16, sampler=sampler, num_workers=para['num_workers'], drop_last=True)
    return sampler, loader


skip_values = [10, 15, 20, 25, 5]
train_sampler, train_loader = renew_loader(5)
total_epoch = math.ceil(para['iterations'] / len(train_loader))
increase_skip_epoch = [round(total_epoch * f) for f in [0.1, 0.2, 0.3, 0.4, 0.9, 1.0]]
for e in range(total_epoch):
    if e != total_epoch and e >= increase_skip_epoch[0]:
        while e >= increase_skip_epoch[0]:
            cur_skip = skip_values[0]
            skip_values = skip_values[1:]
            increase_skip_epoch = increase_skip_epoch[1:]
        train_sampler, train_loader = renew_loader(cur_skip)
    train_sampler.set_epoch(e)
    for (x,) in train_loader:
        pass
