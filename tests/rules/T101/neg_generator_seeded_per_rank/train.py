# stagec fixture: neg_generator_seeded_per_rank (look-alike of pos_generator_constant_seed_all_ranks)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect: none:
#   - the training loader's generator is seeded with the seed plus the rank;
#   - the evaluation loader's generator is a constant, but it shuffles the rank's own part
#     (`Subset(…, idx[rank::world])`): the same permutation of different parts;
#   - the probe loader's constant generator feeds a loader with no workers and its own sampler;
#   - one rank alone builds the export loader under `if rank == 0:`
# ----
import random

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset, Subset, SequentialSampler


class Clips(Dataset):
    def __init__(self, n):
        self.data = torch.randn(n, 3, 32, 32)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        x = self.data[i]
        if random.random() < 0.5:
            x = x.flip(-1)
        return x


def main(seed=777):
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    model = nn.parallel.DistributedDataParallel(nn.Conv2d(3, 8, 3).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    g = torch.Generator()
    g.manual_seed(seed + rank)
    train = DataLoader(Clips(50000), batch_size=64, shuffle=True, num_workers=8, persistent_workers=True, generator=g)
    for epoch in range(10):
        for x in train:
            loss = model(x.cuda()).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    part = Subset(Clips(5000), list(range(5000))[rank::world])
    loader = DataLoader(part, batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(1234))
    probe = Clips(256)
    probing = DataLoader(probe, batch_size=64, sampler=SequentialSampler(probe), generator=torch.Generator().manual_seed(5))
    if rank == 0:
        export = DataLoader(Clips(64), batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(9))
        for x in export:
            model(x.cuda())
    with torch.no_grad():
        for x in loader:
            model(x.cuda())
        for x in probing:
            model(x.cuda())


if __name__ == "__main__":
    main()
