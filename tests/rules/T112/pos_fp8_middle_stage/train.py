# stagec fixture: h08_pos_fp8_middle_stage
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 3, hyperparameters.hpp_config.pipeline_parallel_degree: 3
# runtime: Determined PyTorchTrial (Trainer API)
# expect:
#   T112 at 56:13 stage 1 (TransformerBlock) is declared float8_e4m3fn; its
#        output flows through the classifier into the model's return value, and train_batch feeds
#        that straight into the loss (line 77:16) with no torch.nan_to_num
#        and no scaling in between: an overflow in the fp8 stage (e4m3fn has no inf, values past
#        ±448 become NaN) turns the loss into NaN.
#        Fix: torch.nan_to_num(self.transformer(x), nan=0.0, posinf=448.0, neginf=-448.0)
#   (P206, the fp16 → float8_e4m3fn boundary cast, is the config-level sibling of this finding)
# ----
from typing import Any, Dict

import torch
from torch import nn

from determined import pytorch
from determined.hpp import stage_decorator


@stage_decorator(stage_id=0, device="a100", dtype=torch.float16)
class VisionEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm2d(64)
        self.pool = nn.AdaptiveAvgPool2d(4)

    def forward(self, x):
        return self.pool(torch.relu(self.bn1(self.conv1(x)))).flatten(2).transpose(1, 2)


@stage_decorator(stage_id=1, device="h100", dtype=torch.float8_e4m3fn)
class TransformerBlock(nn.Module):
    def __init__(self, dim: int = 64):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.ffn = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(x, x, x, need_weights=False)[0]
        return x + self.ffn(x)


class HybridModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = VisionEncoder()
        self.transformer = TransformerBlock()
        self.classifier = nn.Linear(64 * 16, 1000)

    def forward(self, x):
        x = self.encoder(x)
        x = self.transformer(x)
        return self.classifier(x.flatten(1))


class HybridTrial(pytorch.PyTorchTrial):
    def __init__(self, context: pytorch.PyTorchTrialContext) -> None:
        self.context = context
        self.model = context.wrap_model(HybridModel())
        self.opt = context.wrap_optimizer(torch.optim.AdamW(self.model.parameters(), lr=context.get_hparam("lr")))
        self.loss_fn = nn.CrossEntropyLoss()

    def build_training_data_loader(self) -> pytorch.DataLoader:
        ds = torch.utils.data.TensorDataset(torch.randn(1024, 3, 32, 32), torch.randint(0, 1000, (1024,)))
        return pytorch.DataLoader(ds, batch_size=self.context.get_per_slot_batch_size())

    def build_validation_data_loader(self) -> pytorch.DataLoader:
        ds = torch.utils.data.TensorDataset(torch.randn(128, 3, 32, 32), torch.randint(0, 1000, (128,)))
        return pytorch.DataLoader(ds, batch_size=32)

    def train_batch(self, batch, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        images, labels = batch
        loss = self.loss_fn(self.model(images), labels)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss.item()}

    def evaluate_batch(self, batch, batch_idx: int) -> Dict[str, Any]:
        images, labels = batch
        return {"validation_loss": self.loss_fn(self.model(images), labels).item()}


if __name__ == "__main__":
    with pytorch.init() as ctx:
        pytorch.Trainer(HybridTrial(ctx), ctx).fit(max_length=pytorch.Batch(5000))
