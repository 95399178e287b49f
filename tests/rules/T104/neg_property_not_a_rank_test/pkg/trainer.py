# stagec fixture: neg_property_not_a_rank_test (issue 22, class 2: "`accelerator.is_main_process`",
#   look-alike: the property tests the step count, the same on every rank)
# named: on the command line (`pkg/cli.py` and this file, as pre-commit passes them)
# runtime: multi-rank (Accelerate; `wait_for_everyone` is a barrier)
# expect: none
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
    def warmed_up(self):
        return self.steps >= 100

    def train_step(self, x):
        loss = (self.model(x) - x).square().mean()
        self.accelerator.backward(loss)
        self.optimizer.step()
        self.optimizer.zero_grad()
        self.steps += 1
        return loss.item()

    def save(self, path):
        self.accelerator.wait_for_everyone()
        if not self.accelerator.is_main_process:
            return
        torch.save(self.accelerator.unwrap_model(self.model).state_dict(), path)
