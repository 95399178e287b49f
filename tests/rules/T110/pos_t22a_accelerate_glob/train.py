# stagec fixture: t22a pos_accelerate_glob (issue 22, classes 1 and 4)
# named: on the command line (no config: launched with `accelerate launch`)
# runtime: multi-rank: an Accelerate Accelerator is the only sign of ranks
# expect:
#   T110 at 19:50 the image paths come from Path.glob in directory order and are indexed in
#        __getitem__; accelerator.prepare shards the loader's indices by rank, so ranks whose
#        listings differ read overlapping and missing images. Fix: sorted(…).
# ----
from pathlib import Path

import torch
from accelerate import Accelerator
from PIL import Image
from torch.utils.data import DataLoader, Dataset


class Folder(Dataset):
    def __init__(self, root, exts=("jpg", "png")):
        self.paths = [p for ext in exts for p in Path(root).glob(f"**/*.{ext}")]

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return torch.as_tensor(list(Image.open(self.paths[i]).getdata()), dtype=torch.float32)


def train(model, opt, root, steps=1000):
    accelerator = Accelerator()
    loader = DataLoader(Folder(root), batch_size=16, shuffle=True)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for x in loader:
        accelerator.backward(model(x).mean())
        opt.step()
        opt.zero_grad()
