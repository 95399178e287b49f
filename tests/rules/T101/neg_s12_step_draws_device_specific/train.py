# stagec fixture: neg_s12_step_draws_device_specific (issue 22, class 3: a diffusion trainer under Accelerate)
# named: on the command line (an accelerate script)
# runtime: Accelerate (prepare: model wrapped, loader sharded)
# expect: nothing. The same trainer, seeded with `set_seed(seed,
#   device_specific=True)`: Accelerate adds the process index, so each rank
#   draws its own timesteps and noise.
# ----
import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from torch.utils.data import DataLoader, TensorDataset


class Trainer:
    def __init__(self, seed):
        self.accelerator = Accelerator()
        set_seed(seed, device_specific=True)
        self.model = torch.nn.Linear(8, 8)
        self.opt = torch.optim.AdamW(self.model.parameters())
        self.loader = DataLoader(TensorDataset(torch.randn(100, 8)), batch_size=4, shuffle=True)
        self.model, self.opt, self.loader = self.accelerator.prepare(self.model, self.opt, self.loader)

    def compute_loss(self, x):
        t = torch.randint(0, 1000, (x.shape[0],), device=x.device)
        noise = torch.randn_like(x)
        return (self.model(x + noise * t[:, None]) - noise).square().mean()

    def train(self):
        for epoch in range(10):
            for (x,) in self.loader:
                loss = self.compute_loss(x)
                self.accelerator.backward(loss)
                self.opt.step()
                self.opt.zero_grad()


if __name__ == "__main__":
    Trainer(42).train()
