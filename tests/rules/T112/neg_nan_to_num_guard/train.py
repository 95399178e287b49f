# stagec fixture: h08_neg_nan_to_num_guard
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 3, hyperparameters.hpp_config.pipeline_parallel_degree: 3
# runtime: Determined PyTorchTrial (Trainer API)
# expect: no finding (T112).
#   The fp8 stage's output is passed through torch.nan_to_num right after the stage call, inside
#   the root model's forward, before anything reaches the loss.
#   (P206 for the fp16 → float8_e4m3fn boundary is a config-level diagnostic and still applies.)
# ----
from typing import Any, Dict

import torch
from torch import nn

from determined import pytorch
from determined.hpp import stage_decorator


@stage_decorator(stage_id=0, device="a100", dtype=torch.float16)
class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, 3, stride=4, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x)).flatten(2).transpose(1, 2)


@stage_decorator(stage_id=1, device="h100", dtype=torch.float8_e4m3fn)
class Mixer(nn.Module):
    def __init__(self, dim: int = 64):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(dim, 256), nn.GELU(), nn.Linear(256, dim))

    def forward(self, x):
        return x + self.fc(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = Stem()
        self.mixer = Mixer()
        self.head = nn.Linear(64, 100)

    def forward(self, x):
        x = self.stem(x)
        x = torch.nan_to_num(self.mixer(x), nan=0.0, posinf=448.0, neginf=-448.0)
        return self.head(x.mean(1))


class GuardedTrial(pytorch.PyTorchTrial):
    def __init__(self, context: pytorch.PyTorchTrialContext) -> None:
        self.context = context
        self.model = context.wrap_model(Net())
        self.opt = context.wrap_optimizer(torch.optim.SGD(self.model.parameters(), lr=0.05))

    def build_training_data_loader(self) -> pytorch.DataLoader:
        ds = torch.utils.data.TensorDataset(torch.randn(512, 3, 32, 32), torch.randint(0, 100, (512,)))
        return pytorch.DataLoader(ds, batch_size=self.context.get_per_slot_batch_size())

    def build_validation_data_loader(self) -> pytorch.DataLoader:
        ds = torch.utils.data.TensorDataset(torch.randn(64, 3, 32, 32), torch.randint(0, 100, (64,)))
        return pytorch.DataLoader(ds, batch_size=16)

    def train_batch(self, batch, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        loss = nn.functional.cross_entropy(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        return {"val_loss": nn.functional.cross_entropy(self.model(x), y).item()}


if __name__ == "__main__":
    with pytorch.init() as ctx:
        pytorch.Trainer(GuardedTrial(ctx), ctx).fit(max_length=pytorch.Batch(100))
