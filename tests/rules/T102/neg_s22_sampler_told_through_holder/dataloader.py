# stagec fixture: neg_s22_sampler_told_through_holder (look-alike of pos_s22_sampler_tested_for_none,
#   bts' shape: the script keeps the holder and tells its sampler the epoch,
#   `dataloader.train_sampler.set_epoch(epoch)`)
# named: beside the other files, as pre-commit passes them
# expect: nothing
# ----
import torch
from torch.utils.data import DataLoader, TensorDataset


class DepthDataLoader(object):
    def __init__(self, args, mode):
        if mode == "train":
            self.training_samples = TensorDataset(torch.randn(100, 3))
            if args.distributed:
                self.train_sampler = torch.utils.data.distributed.DistributedSampler(self.training_samples)
            else:
                self.train_sampler = None
            self.data = DataLoader(self.training_samples, args.batch_size, shuffle=(self.train_sampler is None), num_workers=2, persistent_workers=True, sampler=self.train_sampler)
        elif mode == "online_eval":
            self.testing_samples = TensorDataset(torch.randn(10, 3))
            self.data = DataLoader(self.testing_samples, 1, shuffle=False, num_workers=0)
