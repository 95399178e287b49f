# stagec fixture: neg_s36_shuffle_in_init_before_workers (look-alike of pos_s36_shuffle_in_worker_iter_before_worker_split)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP); every RNG seeded alike on every rank
# expect: nothing
#   the reader shuffles its file list once, in `__init__`, on each rank
#   after every rank seeded Python's RNG alike: one order, which each worker
#   copies when it starts and takes its part of.
# ----
import math
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class NpyReader(IterableDataset):
    def __init__(self, file_list, shuffle=False):
        super().__init__()
        self.file_list = [f for f in file_list if "climatology" not in f]
        self.shuffle = shuffle
        if shuffle:
            random.shuffle(self.file_list)

    def __len__(self):
        return len(self.file_list)

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            start, end = 0, len(self.file_list)
        else:
            rank, world = dist.get_rank(), dist.get_world_size()
            shards = info.num_workers * world
            per_worker = int(math.floor(len(self.file_list) / float(shards)))
            shard = rank * info.num_workers + info.id
            start = shard * per_worker
            end = start + per_worker
        for idx in range(start, end):
            yield torch.from_numpy(np.load(self.file_list[idx]))


def main():
    dist.init_process_group("nccl")
    seed_everything(0)
    files = [f"/data/era5/{year}_{i}.npy" for year in range(1979, 2016) for i in range(64)]
    loader = DataLoader(NpyReader(files, shuffle=True), batch_size=16, num_workers=4, persistent_workers=True)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(48, 48).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
    for epoch in range(100):
        for x in loader:
            loss = model(x.cuda().flatten(1)[:, :48]).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
