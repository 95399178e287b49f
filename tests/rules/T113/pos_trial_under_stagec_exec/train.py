# stagec fixture: t113_pos_trial_under_stagec_exec
# runtime: none as written (stagec exec runs the script, which defines a class and exits); checked as Determined runs
#          the class once the entrypoint names it: a PyTorchTrial on 4 slots, trial seed on every rank.
# expect:
#   T101 at 28:21 RandomSampler without generator= in a plain torch DataLoader (reproducibility
#        checks disabled): every rank draws the trial seed's indices.
# ----
import torch
from torch import nn
from torch.utils.data import DataLoader, RandomSampler, TensorDataset

from determined.pytorch import PyTorchTrial, PyTorchTrialContext


class HybridTrial(PyTorchTrial):
    def __init__(self, context: PyTorchTrialContext) -> None:
        self.context = context
        context.experimental.disable_dataset_reproducibility_checks()
        self.data = TensorDataset(torch.randn(4096, 16), torch.randint(0, 2, (4096,)))
        self.model = context.wrap_model(nn.Linear(16, 2))
        self.opt = context.wrap_optimizer(torch.optim.SGD(self.model.parameters(), lr=0.1))

    def build_training_data_loader(self) -> DataLoader:
        return DataLoader(
            self.data,
            batch_size=32,
            num_workers=2,
            sampler=RandomSampler(self.data),
        )

    def build_validation_data_loader(self) -> DataLoader:
        return DataLoader(self.data, batch_size=256)

    def train_batch(self, batch, epoch_idx: int, batch_idx: int):
        x, y = batch
        loss = nn.functional.cross_entropy(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch, batch_idx: int):
        x, y = batch
        return {"val_loss": nn.functional.cross_entropy(self.model(x), y).item()}
