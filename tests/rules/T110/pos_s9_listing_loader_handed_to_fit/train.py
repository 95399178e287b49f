# stagec fixture: s9 pos_listing_loader_handed_to_fit (issue 22, class 4; review 13a's
#                 byol-pytorch mark: a dataset of globbed paths whose loader goes straight to a
#                 Lightning Trainer's fit, which puts a DistributedSampler in it)
# named: on the command line (a Lightning script, no config)
# runtime: multi-rank: pl.Trainer(gpus=2), the older spelling of devices=
# expect:
#   T110 at 30:21 `Path.glob()` order appended to `self.paths`, which the injected sampler hands
#        out by position.
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
    trainer = pl.Trainer(gpus=2, max_epochs=1000)
    trainer.fit(Learner(), loader)
