# stagec fixture: h05_pos_set_ordered_modules
# context: const.yaml entrypoint "model_def:MultiTaskTrial", resources.slots_per_trial: 8,
#          no PYTHONHASHSEED in environment.environment_variables
# runtime: Determined PyTorchTrial (DDP underneath)
# expect:
#   T109 at 30:21 nn.ModuleDict filled by iterating a set of strings: the set's order
#        depends on each process's string-hash seed, so ranks register the heads (and their
#        parameters) in different orders; DDP then pairs up different parameters across ranks.
#        Fix: iterate sorted(set(TASKS)).
#   T109 at 32:90} a set literal drives nn.ModuleList order, and the loop
#        variable picks each layer's shape: ranks build differently ordered parameter lists.
#   (no finding for `if name in self.skip`: a set used for membership only)
# ----
from typing import Any, Dict

import torch
from torch import nn

from determined.pytorch import DataLoader, PyTorchTrial, PyTorchTrialContext

TASKS = ["segment", "depth", "normals", "edges", "segment"]
REFINE_CH = {"depth": 1, "normals": 3, "edges": 1}


class MultiHead(nn.Module):
    def __init__(self, dim: int = 256):
        super().__init__()
        self.trunk = nn.Sequential(nn.Conv2d(3, dim, 3, padding=1), nn.ReLU())
        self.heads = nn.ModuleDict()
        for name in set(TASKS):
            self.heads[name] = nn.Conv2d(dim, 1, 1)
        self.refiners = nn.ModuleList([nn.Conv2d(1, REFINE_CH[t], 3, padding=1) for t in {"depth", "normals", "edges"}])
        self.skip = {"edges"}

    def forward(self, x):
        h = self.trunk(x)
        out = {}
        for name, head in self.heads.items():
            if name in self.skip:
                continue
            out[name] = head(h)
        return out


class MultiTaskTrial(PyTorchTrial):
    def __init__(self, context: PyTorchTrialContext) -> None:
        self.context = context
        self.model = context.wrap_model(MultiHead())
        self.opt = context.wrap_optimizer(torch.optim.Adam(self.model.parameters(), lr=1e-4))
        self.x = torch.randn(512, 3, 64, 64)
        self.y = torch.randn(512, 1, 64, 64)

    def build_training_data_loader(self) -> DataLoader:
        return DataLoader(torch.utils.data.TensorDataset(self.x, self.y), batch_size=8, shuffle=True)

    def build_validation_data_loader(self) -> DataLoader:
        return DataLoader(torch.utils.data.TensorDataset(self.x[:64], self.y[:64]), batch_size=8)

    def train_batch(self, batch, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        loss = sum(nn.functional.mse_loss(p, y) for p in self.model(x).values())
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        return {"val": sum(nn.functional.mse_loss(p, y).item() for p in self.model(x).values())}
