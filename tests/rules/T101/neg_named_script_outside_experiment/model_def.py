# stagec fixture: h01_neg_named_script_outside_experiment
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed --trial
#          model_def:DenoiseTrial", resources.slots_per_trial: 16
# runtime: Determined PyTorchTrial; its loaders are determined.pytorch.DataLoader (sharded by
#          Determined), and it asks for deterministic algorithms.
# expect: no finding.
# ----
from typing import Any, Dict

import torch
from torch import nn

from determined.pytorch import DataLoader, PyTorchTrial, PyTorchTrialContext
from noise import NoisyImages


class DenoiseTrial(PyTorchTrial):
    def __init__(self, context: PyTorchTrialContext) -> None:
        self.context = context
        torch.use_deterministic_algorithms(True)
        self.net = self.context.wrap_model(
            nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 3, padding=1))
        )
        self.opt = self.context.wrap_optimizer(
            torch.optim.Adam(self.net.parameters(), lr=self.context.get_hparam("lr"))
        )

    def build_training_data_loader(self) -> DataLoader:
        return DataLoader(NoisyImages(4096), batch_size=self.context.get_per_slot_batch_size(), shuffle=True)

    def build_validation_data_loader(self) -> DataLoader:
        return DataLoader(NoisyImages(512, seed=1), batch_size=64)

    def train_batch(self, batch, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        noisy, clean = batch
        loss = nn.functional.mse_loss(self.net(noisy), clean)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch, batch_idx: int) -> Dict[str, Any]:
        noisy, clean = batch
        return {"val_loss": nn.functional.mse_loss(self.net(noisy), clean).item()}
