# stagec fixture: t113_neg_trainer_api_main
# runtime: Determined PyTorchTrial through the Trainer API, 4 slots.
# expect: no finding: the script fits its trial in its __main__ block, and the trial returns
#   Determined's DataLoader (which shards one shared stream).
# ----
import torch
from torch import nn
from torch.utils.data import TensorDataset

from determined import pytorch


class TinyTrial(pytorch.PyTorchTrial):
    def __init__(self, context: pytorch.PyTorchTrialContext) -> None:
        self.context = context
        self.data = TensorDataset(torch.randn(4096, 16), torch.randint(0, 2, (4096,)))
        self.model = context.wrap_model(nn.Linear(16, 2))
        self.opt = context.wrap_optimizer(torch.optim.SGD(self.model.parameters(), lr=0.1))

    def build_training_data_loader(self) -> pytorch.DataLoader:
        return pytorch.DataLoader(self.data, batch_size=32, shuffle=True)

    def build_validation_data_loader(self) -> pytorch.DataLoader:
        return pytorch.DataLoader(self.data, batch_size=256)

    def train_batch(self, batch, epoch_idx: int, batch_idx: int):
        x, y = batch
        loss = nn.functional.cross_entropy(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch, batch_idx: int):
        x, y = batch
        return {"val_loss": nn.functional.cross_entropy(self.model(x), y).item()}


if __name__ == "__main__":
    with pytorch.init() as ctx:
        pytorch.Trainer(TinyTrial(ctx), ctx).fit(max_length=pytorch.Epoch(1))
