# stagec fixture: h01_neg_det_dataloader_weighted
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 8
# runtime: Determined PyTorchTrial through the Trainer API (det.pytorch.init / Trainer.fit)
# expect: no finding.
#   The WeightedRandomSampler has no generator= on purpose: it is wrapped by
#   determined.pytorch.DataLoader, which draws one index stream (the trial seed is identical on
#   every rank) and hands every rank a disjoint slice of its batches (DistributedBatchSampler).
#   A rank-offset generator here would give each rank a different stream before slicing.
# ----
from typing import Any, Dict

import torch
from torch import nn
from torch.utils.data import TensorDataset, WeightedRandomSampler

import determined as det
from determined import pytorch


def rare_event_data(n: int = 30000) -> TensorDataset:
    x = torch.randn(n, 16)
    y = (torch.rand(n) < 0.03).long()
    return TensorDataset(x, y)


class RareEventTrial(pytorch.PyTorchTrial):
    def __init__(self, context: pytorch.PyTorchTrialContext) -> None:
        self.context = context
        self.train_set = rare_event_data()
        self.val_set = rare_event_data(3000)
        self.model = context.wrap_model(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2)))
        self.opt = context.wrap_optimizer(torch.optim.SGD(self.model.parameters(), lr=0.05))
        self.loss_fn = nn.CrossEntropyLoss()

    def build_training_data_loader(self) -> pytorch.DataLoader:
        labels = self.train_set.tensors[1]
        pos = labels.float().mean()
        weights = torch.where(labels == 1, 0.5 / pos, 0.5 / (1 - pos)).double()
        sampler = WeightedRandomSampler(weights, num_samples=len(weights), replacement=True)
        return pytorch.DataLoader(
            self.train_set,
            batch_size=self.context.get_per_slot_batch_size(),
            sampler=sampler,
            num_workers=4,
        )

    def build_validation_data_loader(self) -> pytorch.DataLoader:
        return pytorch.DataLoader(self.val_set, batch_size=512)

    def train_batch(self, batch, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        loss = self.loss_fn(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        return {"val_loss": self.loss_fn(self.model(x), y).item()}


if __name__ == "__main__":
    info = det.get_cluster_info()
    with pytorch.init() as ctx:
        trainer = pytorch.Trainer(RareEventTrial(ctx), ctx)
        trainer.fit(max_length=pytorch.Epoch(5), latest_checkpoint=info.latest_checkpoint if info else None)
