# stagec fixture: s11 neg_sampler_without_torch_distributed (issue 22, class 3; jukebox's
#                 DataProcessor as it is)
# named: on the command line with train.py
# runtime: multi-rank (init_process_group in train.py)
# expect: nothing
#   - the RandomSamplers are built only `if not dist.is_available():`, a torch built without
#     torch.distributed, where no second rank exists; the ranks of this job take the else
#     branch, DistributedSampler, whose shared seed is its design.
# ----
import torch.distributed as dist
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler, RandomSampler


class DataProcessor:
    def __init__(self, dataset, bs):
        self.dataset = dataset
        self.bs = bs
        self.create_samplers()
        self.create_data_loaders()

    def create_samplers(self):
        if not dist.is_available():
            self.train_sampler = BatchSampler(RandomSampler(self.dataset), batch_size=self.bs, drop_last=True)
        else:
            self.train_sampler = DistributedSampler(self.dataset)

    def create_data_loaders(self):
        self.train_loader = DataLoader(self.dataset, batch_size=self.bs, sampler=self.train_sampler, drop_last=True)
