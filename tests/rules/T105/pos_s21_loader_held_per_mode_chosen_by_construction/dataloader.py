# stagec fixture: pos_s21_loader_held_per_mode_chosen_by_construction (issue 22, class 9: the
#                 holder keeps one loader per `mode` as `self.data`; the script builds the
#                 `"online_eval"` holder once and hands it to `online_eval`, which passes over
#                 its loader at every evaluation of the training loop: every rank forks its
#                 evaluation worker again each time. The training holder's loader keeps its
#                 workers, and the test branch's loader, which no construction in sight
#                 chooses, is not reported.)
# named: beside train.py, as pre-commit passes both
# expect:
#   T105 at 36:36 num_workers=2 starts 2 worker processes on every rank …
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
