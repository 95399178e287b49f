# stagec fixture: pos_s17_main_seed_over_module_seed
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# context: a video pre-training script seeds torch at import with a global constant, then seeds
#          it again in `main` with the configured seed before it builds the loader. Every rank
#          seeds alike both times; the seed in `main` is the one the loader's workers draw their
#          base seeds from, so the finding names that one.
# expect:
#   T101 at 35:5 `torch.manual_seed(seed)` in main, not the import-time seed at line 18
# ----
import argparse

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler

_GLOBAL_SEED = 0
torch.manual_seed(_GLOBAL_SEED)


class Clips(Dataset):
    def __len__(self):
        return 1000

    def __getitem__(self, i):
        start = np.random.randint(0, 100)
        return torch.arange(start, start + 16).float()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    seed = args.seed
    torch.manual_seed(seed)
    dist.init_process_group("nccl")
    data = Clips()
    sampler = DistributedSampler(data)
    loader = DataLoader(data, sampler=sampler, batch_size=8, num_workers=8, persistent_workers=True)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x in loader:
            pass


if __name__ == "__main__":
    main()
