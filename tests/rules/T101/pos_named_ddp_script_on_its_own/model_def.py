# stagec fixture: h01_pos_named_ddp_script_on_its_own
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed --trial
#          model_def:TagTrial", resources.slots_per_trial: 1
# runtime: Determined PyTorchTrial on one slot.
# expect: no finding (one process).
# ----
from typing import Any, Dict

import torch
from torch import nn
from torch.utils.data import DataLoader, RandomSampler, TensorDataset

from determined.pytorch import PyTorchTrial, PyTorchTrialContext


def tags(n: int) -> TensorDataset:
    x = torch.randn(n, 16)
    return TensorDataset(x, (x.sum(dim=1) > 0).long())


class TagTrial(PyTorchTrial):
    def __init__(self, context: PyTorchTrialContext) -> None:
        self.context = context
        self.context.experimental.disable_dataset_reproducibility_checks()
        self.model = self.context.wrap_model(nn.Linear(16, 2))
        self.opt = self.context.wrap_optimizer(
            torch.optim.SGD(self.model.parameters(), lr=self.context.get_hparam("lr"))
        )

    def build_training_data_loader(self) -> DataLoader:
        data = tags(8192)
        return DataLoader(data, batch_size=32, sampler=RandomSampler(data))

    def build_validation_data_loader(self) -> DataLoader:
        return DataLoader(tags(512), batch_size=128)

    def train_batch(self, batch, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        loss = nn.functional.cross_entropy(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        return {"val_loss": nn.functional.cross_entropy(self.model(x), y).item()}
