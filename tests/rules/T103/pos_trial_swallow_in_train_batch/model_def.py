# stagec fixture: h03_pos_trial_swallow_in_train_batch
# context: const.yaml entrypoint "model_def:RetrievalTrial", resources.slots_per_trial: 8
# runtime: Determined PyTorchTrial (torch DDP underneath: context.backward all-reduces gradients)
# expect:
#   T103 at 52:9 a broad `except Exception` around reading a per-sample
#        side file logs and returns early from train_batch, skipping self.context.backward(loss)
#        and self.context.step_optimizer(...) in the try body (line 50:13).
#        On this rank the gradient all-reduce never happens for the batch; the other ranks block.
#   (no finding for the handler in _cache_dir: it catches FileExistsError and falls through)
# ----
import logging
import os
from typing import Any, Dict

import torch
from torch import nn

from determined.pytorch import DataLoader, PyTorchTrial, PyTorchTrialContext

logger = logging.getLogger(__name__)


class RetrievalTrial(PyTorchTrial):
    def __init__(self, context: PyTorchTrialContext) -> None:
        self.context = context
        self.neg_dir = self._cache_dir(context.get_data_config().get("negatives", "/data/negatives"))
        self.encoder = context.wrap_model(nn.Sequential(nn.Linear(300, 256), nn.Tanh()))
        self.opt = context.wrap_optimizer(torch.optim.Adam(self.encoder.parameters(), lr=2e-5))

    def _cache_dir(self, path: str) -> str:
        try:
            os.makedirs(path)
        except FileExistsError:
            pass
        return path

    def build_training_data_loader(self) -> DataLoader:
        ids = torch.arange(100000)
        return DataLoader(torch.utils.data.TensorDataset(torch.randn(100000, 300), ids), batch_size=32)

    def build_validation_data_loader(self) -> DataLoader:
        return DataLoader(torch.utils.data.TensorDataset(torch.randn(2000, 300), torch.arange(2000)), batch_size=64)

    def train_batch(self, batch, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        q, ids = batch
        try:
            negs = torch.load(os.path.join(self.neg_dir, f"{int(ids[0])}.pt"))
            anchor, negative = self.encoder(q), self.encoder(negs[: len(q)])
            loss = nn.functional.relu(1.0 - (anchor * anchor).sum(1) + (anchor * negative).sum(1)).mean()
            self.context.backward(loss)
            self.context.step_optimizer(self.opt)
        except Exception:
            logger.exception("batch %d skipped", batch_idx)
            return {"loss": torch.tensor(0.0)}
        return {"loss": loss}

    def evaluate_batch(self, batch, batch_idx: int) -> Dict[str, Any]:
        q, _ = batch
        return {"norm": self.encoder(q).norm(dim=1).mean().item()}
