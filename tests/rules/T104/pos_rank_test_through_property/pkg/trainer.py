# stagec fixture: pos_rank_test_through_property (issue 22, class 2: "`accelerator.is_main_process`",
#   here behind a property of the project's trainer; the CLI beside `pkg/pkg.py` imports the package)
# named: on the command line (`pkg/cli.py` and this file, as pre-commit passes them)
# runtime: multi-rank (Accelerate; `wait_for_everyone` is a barrier)
# expect: none here (the finding is at its call in `pkg/cli.py`)
# ----
import torch
from accelerate import Accelerator
from torch import nn


class Trainer(nn.Module):
    def __init__(self, model, lr=1e-4):
        super().__init__()
        self.accelerator = Accelerator()
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.model, self.optimizer = self.accelerator.prepare(self.model, self.optimizer)
        self.steps = 0

    @property
    def is_main(self):
        return self.accelerator.is_main_process

    def train_step(self, x):
        loss = (self.model(x) - x).square().mean()
        self.accelerator.backward(loss)
        self.optimizer.step()
        self.optimizer.zero_grad()
        self.steps += 1
        return loss.item()

    def save(self, path):
        self.accelerator.wait_for_everyone()
        if not self.is_main:
            return
        torch.save(self.accelerator.unwrap_model(self.model).state_dict(), path)
