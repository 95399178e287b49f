# stagec fixture: neg_s29_lightning_shuffled_loader_workers_seeded_apart (look-alike of
#   pos_s29_lightning_shuffled_loader_worker_seeds_alike)
# named: on the command line (a Lightning script, no config)
# runtime: multi-rank (Trainer with strategy="ddp" on 8 devices)
# expect: nothing:
#   - `seed_everything(seed, workers=True)` gives each rank's workers seeds of their own;
#   - the evaluation loader is read in a fixed order (shuffle=False) and draws nothing;
#   - the training step draws nothing from the global RNG (its noise comes with the batch)
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
        clean, noise = batch
        return (self.net(clean + noise) - noise).pow(2).mean()


def main(clips, seed=0):
    seed_everything(seed, workers=True)
    loader = DataLoader(AudioClips(clips), batch_size=8, num_workers=16, pin_memory=True, shuffle=True)
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="ddp", max_epochs=100)
    trainer.fit(Diffusion(), loader)
