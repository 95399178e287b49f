# stagec fixture: neg_s23_prepared_entry_is_another_model (issue 22, class 3; the look-alike of tango's shape:
#   the diffusion model draws in its own `forward`, but the name `model` is bound again to the
#   entry `accelerator.prepare` hands back for a model from outside, which the loop calls)
# named: on the command line (an accelerate script)
# expect: nothing
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
    unet = torch.hub.load("repo", "unet")
    optimizer = torch.optim.AdamW(model.parameters())
    loader = DataLoader(TensorDataset(torch.randn(100, 8)), batch_size=4, shuffle=True)
    vae, model, optimizer = accelerator.prepare(vae, unet, optimizer)
    loader = accelerator.prepare(loader)
    for epoch in range(10):
        for (x,) in loader:
            loss = model(vae(x))
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main()
