# stagec fixture: s9 neg_listing_fit_sampler_off (issue 22, class 4: the look-alike of
#                 pos_s9_listing_loader_handed_to_fit: the Trainer is told not to put a
#                 sampler in its loaders, so every rank reads every sample, in its own order)
# named: on the command line (a Lightning script, no config)
# runtime: multi-rank: pl.Trainer(devices=2, use_distributed_sampler=False)
# expect: none
# ----
import os
from pathlib import Path

import pytorch_lightning as pl
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

IMAGE_EXTS = [".jpg", ".png", ".jpeg"]


class Learner(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        return batch.mean()


class ImagesDataset(Dataset):
    def __init__(self, folder):
        super().__init__()
        self.paths = []
        for path in Path(f"{folder}").glob("**/*"):
            _, ext = os.path.splitext(path)
            if ext.lower() in IMAGE_EXTS:
                self.paths.append(path)

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        return Image.open(self.paths[index]).convert("RGB")


if __name__ == "__main__":
    ds = ImagesDataset("/data/images")
    loader = DataLoader(ds, batch_size=32, shuffle=True)
    trainer = pl.Trainer(devices=2, max_epochs=1000, use_distributed_sampler=False)
    trainer.fit(Learner(), loader)
