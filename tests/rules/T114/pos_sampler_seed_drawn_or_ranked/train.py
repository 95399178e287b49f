# stagec fixture: pos_sampler_seed_drawn_or_ranked (issue 22, class 3: seeds; an image-restoration
#   trainer draws a seed when the option file gives none and hands it to the sampler; a second
#   loader's sampler gets the per-rank seed meant for augmentation)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect:
#   T114 at 34:16 `random.randint(1, 10000)`: each rank draws its own sampler seed (before
#        `random.seed(seed)` seeds it with that very draw)
#   T114 at 43:68 `seed=base + rank`: the patch sampler's seed depends on the rank
# ----
import json
import random
import sys

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def parse(path):
    with open(path) as f:
        opt = json.load(f)
    opt.setdefault("manual_seed", None)
    return opt


def main():
    opt = parse(sys.argv[1])
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    seed = opt["manual_seed"]
    if seed is None:
        seed = random.randint(1, 10000)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    images = TensorDataset(torch.randn(4096, 3, 48, 48))
    sampler = DistributedSampler(images, shuffle=True, drop_last=True, seed=seed)
    loader = DataLoader(images, batch_size=16, sampler=sampler, num_workers=4, persistent_workers=True)
    base = 1234
    patches = TensorDataset(torch.randn(512, 3, 96, 96))
    patch_sampler = DistributedSampler(patches, shuffle=True, seed=base + rank)
    patch_loader = DataLoader(patches, batch_size=8, sampler=patch_sampler)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Conv2d(3, 3, 3, padding=1).cuda())
    optim = torch.optim.Adam(model.parameters())
    for epoch in range(100):
        sampler.set_epoch(epoch)
        patch_sampler.set_epoch(epoch)
        for (x,), (p,) in zip(loader, patch_loader):
            loss = model(x.cuda()).abs().mean() + model(p.cuda()).abs().mean()
            optim.zero_grad()
            loss.backward()
            optim.step()


if __name__ == "__main__":
    main()
