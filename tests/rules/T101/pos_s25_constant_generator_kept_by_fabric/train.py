# stagec fixture: s25 pos_constant_generator_kept_by_fabric (issue 22, class 3; review 34a's
#                 co-tracker M12, M18: the loader's generator is seeded with 42 on every rank;
#                 Lightning Lite's `setup_dataloaders` swaps in a distributed sampler of its own
#                 but keeps the generator, from which each pass draws the workers' base seeds,
#                 so worker k of every rank crops alike)
# named: on the command line (a Lightning Lite script run on 8 GPUs)
# expect:
#   T101 at 41:19 every rank seeds the loader's generator with 42.
# ----
import random

import numpy as np
import torch
from lightning.fabric import Fabric
from torch.utils.data import DataLoader, Dataset


class Clips(Dataset):
    def __len__(self):
        return 1000

    def __getitem__(self, index):
        clip = torch.load(f"clip_{index}.pt")
        top = np.random.randint(0, clip.shape[-2] - 256)
        return clip[..., top : top + 256, :]


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed + worker_id)
    random.seed(worker_seed + worker_id)


def main():
    fabric = Fabric(accelerator="cuda", devices=8, strategy="ddp")
    fabric.launch()
    model = torch.nn.Linear(256, 2)
    optimizer = torch.optim.AdamW(model.parameters())
    model, optimizer = fabric.setup(model, optimizer)
    g = torch.Generator()
    g.manual_seed(42)
    loader = DataLoader(Clips(), batch_size=4, shuffle=True, num_workers=8, worker_init_fn=seed_worker, generator=g)
    loader = fabric.setup_dataloaders(loader)
    for epoch in range(50):
        for clip in loader:
            fabric.backward(model(clip).mean())
            optimizer.step()


if __name__ == "__main__":
    main()
