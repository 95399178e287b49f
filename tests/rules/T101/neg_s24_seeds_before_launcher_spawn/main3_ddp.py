# stagec fixture: s24 neg_seeds_before_launcher_spawn (issue 22, class 3; review 29b's
#                 AcademiCodec: every RNG is seeded in `main()`, which then starts the ranks
#                 through a launcher helper's mp.spawn; the spawned ranks never run the seeding,
#                 so their loader workers do not start alike (T115 reports the lost seed))
# named: on the command line (`python main3_ddp.py --seed 1234`)
# expect: nothing
# ----
import argparse
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from launch import launch


class Clips(Dataset):
    def __len__(self):
        return 1000

    def __getitem__(self, i):
        start = random.randint(0, 16000)
        return torch.full((4,), float(start + i))


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main_worker(local_rank, args):
    ds = Clips()
    loader = DataLoader(ds, sampler=DistributedSampler(ds), batch_size=8, num_workers=8, persistent_workers=True)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1).cuda(local_rank), device_ids=[local_rank])
    for epoch in range(10):
        loader.sampler.set_epoch(epoch)
        for x in loader:
            model(x.cuda(local_rank)).sum().backward()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    seed_everything(args.seed)
    launch(main_worker, torch.cuda.device_count(), args=(args,))


if __name__ == "__main__":
    main()
