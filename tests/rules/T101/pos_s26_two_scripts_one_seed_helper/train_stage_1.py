# stagec fixture: s26 pos_two_scripts_one_seed_helper (issue 22, class 3; Moore-AnimateAnyone's
#                 shape: two stages' scripts, each launched with `accelerate launch`, each seeding
#                 through the one helper, passed to stagec together as a commit that changes both)
# named: on the command line, with train_stage_2.py and utils/seeding.py
# expect:
#   T101 at 18:9 seed_everything(cfg.seed) in this script's own program: each stage's script is
#        reported where it seeds, not only the first one read
# ----
import torch
from accelerate import Accelerator

from utils.seeding import seed_everything


def main(cfg):
    accelerator = Accelerator()
    if cfg.seed is not None:
        seed_everything(cfg.seed)
    denoiser = torch.nn.Linear(16, 16)
    loader = torch.utils.data.DataLoader(torch.randn(256, 16), batch_size=8, shuffle=True)
    optimizer = torch.optim.AdamW(denoiser.parameters(), lr=1e-4)
    denoiser, optimizer, loader = accelerator.prepare(denoiser, optimizer, loader)
    for epoch in range(cfg.epochs):
        for latents in loader:
            noise = torch.randn_like(latents)
            loss = (denoiser(latents + noise) - noise).pow(2).mean()
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main(None)
