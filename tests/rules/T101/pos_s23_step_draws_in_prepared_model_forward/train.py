# stagec fixture: pos_s23_step_draws_in_prepared_model_forward (issue 22, class 3; tango's shape:
#   the diffusion model draws its timesteps and noise in its own `forward`, and the script calls
#   the model as handed back by `accelerator.prepare(vae, model, optimizer)`)
# named: on the command line (an accelerate script)
# expect:
#   T101 at 33:5 `set_seed(args.seed)` seeds every rank alike, and the model's forward draws the
#        step's timesteps (`torch.randint`) from that RNG: every rank draws the same timesteps.
# ----
import argparse

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from torch.utils.data import DataLoader, TensorDataset


class LatentDiffusion(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 8)

    def forward(self, latents):
        t = torch.randint(0, 1000, (latents.shape[0],), device=latents.device)
        noise = torch.randn_like(latents)
        return (self.net(latents + noise * t[:, None]) - noise).square().mean()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    accelerator = Accelerator()
    set_seed(args.seed)
    vae = torch.nn.Linear(8, 8)
    model = LatentDiffusion()
    optimizer = torch.optim.AdamW(model.parameters())
    loader = DataLoader(TensorDataset(torch.randn(100, 8)), batch_size=4, shuffle=True)
    vae, model, optimizer = accelerator.prepare(vae, model, optimizer)
    loader = accelerator.prepare(loader)
    for epoch in range(10):
        for (x,) in loader:
            loss = model(vae(x))
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main()
