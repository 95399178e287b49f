# stagec fixture: h04_pos_trial_validation_loader
# context: const.yaml entrypoint "model_def:SegFormerTrial", resources.slots_per_trial: 6,
#          data: {train_workers: 12, eval_workers: 12},
#          hyperparameters.hpp_config.pipeline_parallel_degree: 2 (stages declared below)
# runtime: Determined PyTorchTrial (legacy entrypoint), determined.pytorch.DataLoader
# expect:
#   T105 at 75:13 num_workers resolves to 12
#        (const.yaml data.eval_workers) on a pipeline stage's host, without persistent_workers=True;
#        Determined re-iterates the validation loader at every validation, so 12 workers are torn
#        down and started again each time. Fix: add persistent_workers=True.
#   (no T105 for the training loader: Determined iterates its training loader through one
#    endless iterator, so its workers are started once; persistent_workers changes nothing)
# ----
from typing import Any, Dict

import torch
from torch import nn

from determined.hpp import stage_decorator
from determined.pytorch import DataLoader, PyTorchTrial, PyTorchTrialContext


@stage_decorator(stage_id=0, device="a100", dtype=torch.bfloat16)
class PatchEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(3, 64, kernel_size=4, stride=4)

    def forward(self, x):
        return self.proj(x)


@stage_decorator(stage_id=1, device="a100", dtype=torch.bfloat16)
class MaskHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = nn.Conv2d(64, 19, kernel_size=1)

    def forward(self, x):
        return self.out(x)


class SegModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = PatchEncoder()
        self.head = MaskHead()

    def forward(self, x):
        return self.head(self.encoder(x))


class SegFormerTrial(PyTorchTrial):
    def __init__(self, context: PyTorchTrialContext) -> None:
        self.context = context
        self.model = context.wrap_model(SegModel())
        self.opt = context.wrap_optimizer(torch.optim.AdamW(self.model.parameters(), lr=6e-5))
        self.images = torch.randn(2000, 3, 128, 128)
        self.masks = torch.randint(0, 19, (2000, 32, 32))

    def build_training_data_loader(self) -> DataLoader:
        ds = torch.utils.data.TensorDataset(self.images, self.masks)
        return DataLoader(
            ds,
            batch_size=self.context.get_per_slot_batch_size(),
            shuffle=True,
            num_workers=self.context.get_data_config()["train_workers"],
        )

    def build_validation_data_loader(self) -> DataLoader:
        ds = torch.utils.data.TensorDataset(self.images[:200], self.masks[:200])
        return DataLoader(
            ds,
            batch_size=8,
            num_workers=self.context.get_data_config()["eval_workers"],
            pin_memory=True,
        )

    def train_batch(self, batch, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        loss = nn.functional.cross_entropy(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        return {"val_loss": nn.functional.cross_entropy(self.model(x), y).item()}
