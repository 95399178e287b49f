# stagec fixture: neg_generator_constant_prepared (look-alike of pos_generator_constant_seed_all_ranks;
#   F5-TTS's trainer)
# named: on the command line (an Accelerate script, no config)
# runtime: multi-rank (accelerate launch: an Accelerator)
# expect: none: the loader with a constant-seeded generator is handed to `accelerator.prepare`, which
#   keeps that generator in step on every rank (its shuffle must agree) and shards the batches
# ----
import random

import torch
from accelerate import Accelerator
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Clips(Dataset):
    def __init__(self, n):
        self.data = torch.randn(n, 16)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        x = self.data[i]
        return x.flip(-1) if random.random() < 0.5 else x


def train(dataset, num_workers=16, resumable_with_seed=666):
    accelerator = Accelerator()
    model = nn.Linear(16, 1)
    opt = torch.optim.AdamW(model.parameters())
    model, opt = accelerator.prepare(model, opt)
    generator = torch.Generator()
    generator.manual_seed(resumable_with_seed)
    loader = DataLoader(dataset, batch_size=32, shuffle=True, num_workers=num_workers, persistent_workers=True, generator=generator)
    loader = accelerator.prepare(loader)
    for epoch in range(10):
        for x in loader:
            loss = model(x).square().mean()
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    train(Clips(10000))
