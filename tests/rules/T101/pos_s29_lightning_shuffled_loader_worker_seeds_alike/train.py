# stagec fixture: pos_s29_lightning_shuffled_loader_worker_seeds_alike (issue 22, class 3; an
#   audio diffusion trainer: `seed_everything(seed)` without workers=True, then a shuffling
#   loader with 16 workers handed to a DDP Trainer, which swaps the shuffle for a distributed
#   sampler but leaves the workers' seeds to torch's base seed)
# named: on the command line (a Lightning script, no config)
# runtime: multi-rank (Trainer with strategy="ddp" on 8 devices)
# expect:
#   T101 at 44:5 `seed_everything(seed)` seeds torch's global RNG with the same value on every rank …
#        (the loader workers' base seeds)
#   T101 at 44:5 the same seeding, for the noise `training_step` draws at every step
# ----
import random

import pytorch_lightning as pl
import torch
from pytorch_lightning import seed_everything
from torch.utils.data import DataLoader, Dataset


class AudioClips(Dataset):
    def __init__(self, clips):
        self.clips = clips

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, i):
        clip = self.clips[i]
        start = random.randint(0, max(0, len(clip) - 16000))
        return torch.as_tensor(clip[start : start + 16000])


class Diffusion(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(16000, 16000)

    def training_step(self, batch, batch_idx):
        noise = torch.randn_like(batch)
        return (self.net(batch + noise) - noise).pow(2).mean()


def main(clips, seed=0):
    seed_everything(seed)
    loader = DataLoader(AudioClips(clips), batch_size=8, num_workers=16, pin_memory=True, shuffle=True)
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="ddp", max_epochs=100)
    trainer.fit(Diffusion(), loader)
