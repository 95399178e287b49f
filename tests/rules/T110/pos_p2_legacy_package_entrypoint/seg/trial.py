# stagec fixture project p2_legacy_package_entrypoint: seg/trial.py (the legacy entrypoint's class)
# entrypoint "seg.trial:TileSegTrial": module seg.trial -> seg/trial.py (package seg/ with
# __init__.py), class TileSegTrial; Determined runs it under determined.launch.torch_distributed
# (one process per slot, 8 slots) through determined.exec.harness.
# expect: no finding in this file.
#   - random_split without generator=: the split must be identical on every rank, and Determined
#     seeds every rank with the same trial seed (a rank offset would leak validation tiles).
#   - determined.pytorch.DataLoader(shuffle=True): Determined's loader shards by rank (T101 silent).
#   - num_workers = const.yaml data.loader_workers = 6, below 8 (and no pipeline stages anyway).
# ----
from typing import Any, Dict

import torch
from torch import nn
from torch.utils.data import random_split

from determined.pytorch import DataLoader, PyTorchTrial, PyTorchTrialContext
from seg.data import TileDataset

from .nets import UNet


class TileSegTrial(PyTorchTrial):
    def __init__(self, context: PyTorchTrialContext) -> None:
        self.context = context
        cfg = context.get_data_config()
        full = TileDataset(cfg["tiles_root"])
        n_val = max(1, len(full) // 20)
        self.train_set, self.val_set = random_split(full, [len(full) - n_val, n_val])
        self.workers = cfg["loader_workers"]
        self.model = context.wrap_model(UNet(width=context.get_hparam("base_width")))
        self.opt = context.wrap_optimizer(torch.optim.Adam(self.model.parameters(), lr=context.get_hparam("lr")))
        self.loss_fn = nn.CrossEntropyLoss()

    def build_training_data_loader(self) -> DataLoader:
        return DataLoader(
            self.train_set,
            batch_size=self.context.get_per_slot_batch_size(),
            shuffle=True,
            num_workers=self.workers,
        )

    def build_validation_data_loader(self) -> DataLoader:
        return DataLoader(self.val_set, batch_size=self.context.get_per_slot_batch_size(), num_workers=self.workers)

    def train_batch(self, batch, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        loss = self.loss_fn(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        return {"val_loss": self.loss_fn(self.model(x), y).item()}
