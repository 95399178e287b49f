# stagec fixture: h01_pos_trial_plain_loader_subset
# context: const.yaml entrypoint "model_def:BalancedTrial" (legacy: Determined runs it under
#          determined.launch.torch_distributed), resources.slots_per_trial: 4
# runtime: Determined PyTorchTrial. Determined seeds torch with the trial seed on every rank,
#          but this trial returns a plain torch DataLoader (reproducibility checks disabled), so
#          nothing shards it.
# expect:
#   T101 at 49:21 SubsetRandomSampler without generator=: every rank
#        permutes the same indices identically (the trial seed is the same on all ranks).
#        Fix: generator=torch.Generator().manual_seed(self.context.get_trial_seed()
#             + self.context.distributed.get_rank())
#   (no T101 for the validation SequentialSampler: it has no randomness)
# ----
from typing import Any, Dict

import torch
from torch import nn
from torch.utils.data import DataLoader, SequentialSampler, SubsetRandomSampler, TensorDataset

from determined.pytorch import PyTorchTrial, PyTorchTrialContext


def make_tabular(n: int = 20000, features: int = 32) -> TensorDataset:
    x = torch.randn(n, features)
    y = (x[:, 0] + 0.1 * torch.randn(n) > 0).long()
    return TensorDataset(x, y)


class BalancedTrial(PyTorchTrial):
    def __init__(self, context: PyTorchTrialContext) -> None:
        self.context = context
        self.context.experimental.disable_dataset_reproducibility_checks()
        self.data = make_tabular()
        cut = int(0.9 * len(self.data))
        self.train_idx = list(range(cut))
        self.val_idx = list(range(cut, len(self.data)))
        self.model = self.context.wrap_model(
            nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 2))
        )
        self.opt = self.context.wrap_optimizer(
            torch.optim.Adam(self.model.parameters(), lr=self.context.get_hparam("lr"))
        )
        self.loss_fn = nn.CrossEntropyLoss()

    def build_training_data_loader(self) -> DataLoader:
        return DataLoader(
            self.data,
            batch_size=self.context.get_per_slot_batch_size(),
            sampler=SubsetRandomSampler(self.train_idx),
        )

    def build_validation_data_loader(self) -> DataLoader:
        subset = torch.utils.data.Subset(self.data, self.val_idx)
        return DataLoader(subset, batch_size=256, sampler=SequentialSampler(subset))

    def train_batch(self, batch, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        loss = self.loss_fn(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        return {"val_loss": self.loss_fn(self.model(x), y).item()}
