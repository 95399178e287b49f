# stagec fixture: neg_s21_loader_held_per_mode_chosen_at_run_time (issue 22, class 9, a look-alike:
#                 the evaluation holder's mode comes from the command line, `--eval_mode`, so
#                 which of the per-mode loaders it holds is the run's choice, not the code's)
# named: beside train.py, as pre-commit passes both
# expect: nothing
# ----
import torch
from torch.utils.data import DataLoader, TensorDataset


def make_samples(mode):
    n = 4096 if mode == "train" else 256
    return TensorDataset(torch.randn(n, 8), torch.randn(n, 1))


class NewDataLoader(object):
    def __init__(self, args, mode):
        if mode == "train":
            self.samples = make_samples(mode)
            self.train_sampler = torch.utils.data.distributed.DistributedSampler(self.samples)
            self.data = DataLoader(
                self.samples,
                args.batch_size,
                num_workers=args.num_threads,
                persistent_workers=True,
                sampler=self.train_sampler,
            )
        elif mode == "online_eval":
            self.samples = make_samples(mode)
            self.data = DataLoader(self.samples, 1, shuffle=False,
                                   num_workers=2)
        elif mode == "test":
            self.samples = make_samples(mode)
            self.data = DataLoader(self.samples, 1, shuffle=False, num_workers=2)
