# stagec fixture: pos_worker_seed_callable_drawn (issue 22, class 3: "`worker_init_fn` that seeds
#   ... every worker of every rank draws alike"; a speech recipe's callable worker seeder: the base is
#   drawn from torch's RNG, which every rank seeded with the same value just before)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group; lhotse's fix_random_seed seeds random, numpy and torch)
# expect:
#   T101 at 24:9 worker k of every rank gets the same seed: `self.seed` was drawn from a torch RNG
#        that `fix_random_seed(args.seed)` seeded alike on every rank
# ----
import argparse

import numpy as np
import torch
import torch.distributed as dist
from lhotse.utils import fix_random_seed
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class SeedWorkers:
    def __init__(self, seed: int):
        self.seed = seed

    def __call__(self, worker_id: int):
        fix_random_seed(self.seed + worker_id)


class NoisyClips(Dataset):
    def __len__(self):
        return 20_000

    def __getitem__(self, i):
        clip = np.zeros(16000, dtype=np.float32)
        return clip + np.random.normal(0, np.random.uniform(0.001, 0.01), 16000).astype(np.float32)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    fix_random_seed(args.seed)
    data = NoisyClips()
    sampler = DistributedSampler(data)
    seed = torch.randint(0, 100000, ()).item()
    loader = DataLoader(data, batch_size=16, sampler=sampler, num_workers=4,
                        worker_init_fn=SeedWorkers(seed), persistent_workers=True)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Conv1d(1, 1, 3).cuda())
    opt = torch.optim.Adam(model.parameters())
    for epoch in range(30):
        sampler.set_epoch(epoch)
        for clip in loader:
            loss = model(clip[:, None].cuda()).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
