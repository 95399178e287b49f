# stagec fixture project p1_trainer_api_hpp: data.py
# expect:
#   T105 at 51:9 (in make_eval_loader) `workers` is bound at the
#        call site in train.py to self.context.get_hparam("eval_workers"), which const.yaml sets
#        to 12; no persistent_workers=True, and Determined re-iterates the validation loader at
#        every validation. Fix: add persistent_workers=True.
#   (no T105 in make_train_loader: its loader is what build_training_data_loader returns, and
#    Determined iterates the training loader through one iterator for the whole trial)
#   The DataLoader in make_train_loader is the related location of T101 in train.py.
# ----
import torch
from torch.utils.data import DataLoader, Dataset

from determined import pytorch


class SyntheticImages(Dataset):
    def __init__(self, n: int, classes: int = 50, skew: float = 3.0):
        g = torch.Generator().manual_seed(n)
        self.x = torch.randn(n, 3, 64, 64, generator=g)
        raw = torch.rand(n, generator=g) ** skew
        self.y = (raw * classes).long().clamp(max=classes - 1)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def inverse_frequency(labels: torch.Tensor) -> torch.Tensor:
    counts = torch.bincount(labels).clamp(min=1).double()
    return (1.0 / counts)[labels]


def make_train_loader(dataset: Dataset, sampler, workers: int, batch_size: int) -> DataLoader:
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=sampler,
        num_workers=workers,
        pin_memory=True,
        drop_last=True,
    )


def make_eval_loader(dataset: Dataset, workers: int, batch_size: int) -> pytorch.DataLoader:
    return pytorch.DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=workers,
        pin_memory=True,
    )
