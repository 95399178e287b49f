# stagec fixture: pos_s22_sampler_tested_for_none (issue 22, class 3; AdaBins' shape: the loader
#   holder keeps a DistributedSampler (or None) per mode, the loader shuffles only when it is None,
#   `shuffle=(self.train_sampler is None)` — a test that keeps nothing of it — and the epoch loop
#   never calls set_epoch)
# named: beside the other files, as pre-commit passes them
# expect:
#   T102 at 18:38 DistributedSampler shuffles with seed + epoch, but set_epoch is never called on it …
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
