# stagec fixture: pos_generator_constant_seed_all_ranks (issue 22, class 3: the half-applied fix)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect:
#   T101 at 41:27 a generator seeded with the helper's default 777 on every rank feeds loaders with
#        workers (persistent_workers=True): each pass's worker base seed comes from it, so worker k
#        of every rank draws the same crops and flips (`random.random()`, `torch.randint`)
#   T101 at 58:106 `torch.Generator().manual_seed(1234)`, the same on every rank, shuffles the whole
#        evaluation set: every rank draws the same order and evaluates the same batches
# ----
import random

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Clips(Dataset):
    def __init__(self, n):
        self.data = torch.randn(n, 3, 32, 32)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        x = self.data[i]
        if random.random() < 0.5:
            x = x.flip(-1)
        top = int(torch.randint(0, 8, (1,)))
        return x[:, top : top + 24, :24]


class RankShard(Clips):
    def __len__(self):
        return len(self.data) // dist.get_world_size()


def build_loaders(workers, seed=777):
    generator = torch.Generator()
    generator.manual_seed(seed)
    train = DataLoader(RankShard(50000), batch_size=None, num_workers=workers, persistent_workers=True, generator=generator)
    return train


def main():
    dist.init_process_group("nccl")
    model = nn.parallel.DistributedDataParallel(nn.Conv2d(3, 8, 3).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train = build_loaders(8)
    for epoch in range(10):
        for x in train:
            loss = model(x.cuda().unsqueeze(0)).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    evaluation = Clips(5000)
    loader = DataLoader(evaluation, batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(1234))
    with torch.no_grad():
        for x in loader:
            model(x.cuda())


if __name__ == "__main__":
    main()
