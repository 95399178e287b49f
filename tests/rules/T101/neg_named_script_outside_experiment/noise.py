# stagec fixture: h01_neg_named_script_outside_experiment
# context: imported by model_def.py (the experiment's trial) and by sweep_notebook.py.
# expect: no finding.
# ----
import torch
from torch.utils.data import Dataset


class NoisyImages(Dataset):
    def __init__(self, n: int, seed: int = 0) -> None:
        g = torch.Generator().manual_seed(seed)
        self.clean = torch.rand(n, 1, 28, 28, generator=g)
        self.noisy = self.clean + 0.2 * torch.randn(n, 1, 28, 28, generator=g)

    def __len__(self) -> int:
        return len(self.clean)

    def __getitem__(self, i: int):
        return self.noisy[i], self.clean[i]
