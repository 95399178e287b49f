# stagec fixture: pos_s36_helper_shuffle_called_from_worker_iter (issue 22, review 47a: climate-learn's iterdataset.py)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP); every RNG seeded alike on every rank
# expect: T101 at 44:45
#   `__iter__` hands its input and target lists to a helper that shuffles
#   them together, in each of the loader's 4 workers, then takes the
#   worker's part of the shuffled lists by position. Reported at the call in
#   `__iter__` (the helper shuffles wherever it runs; it is called only
#   there), with the shuffle labelled.
# ----
import math
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


def shuffle_two_list(list1, list2):
    index_shuf = list(range(len(list1)))
    random.shuffle(index_shuf)
    return [list1[i] for i in index_shuf], [list2[i] for i in index_shuf]


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class NpyReader(IterableDataset):
    def __init__(self, file_list, out_list, shuffle=False):
        super().__init__()
        self.file_list = [f for f in file_list if "climatology" not in f]
        self.out_list = [f for f in out_list if "climatology" not in f]
        self.shuffle = shuffle

    def __len__(self):
        return len(self.file_list)

    def __iter__(self):
        if self.shuffle:
            self.file_list, self.out_list = shuffle_two_list(self.file_list, self.out_list)
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
            yield torch.from_numpy(np.load(self.file_list[idx])), torch.from_numpy(np.load(self.out_list[idx]))


def main():
    dist.init_process_group("nccl")
    seed_everything(0)
    files = [f"/data/era5/{year}_{i}.npy" for year in range(1979, 2016) for i in range(64)]
    loader = DataLoader(NpyReader(files, [f.replace("era5", "era5_6h") for f in files], shuffle=True), batch_size=16, num_workers=4, persistent_workers=True)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(48, 48).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
    for epoch in range(100):
        for x, y in loader:
            loss = (model(x.cuda().flatten(1)[:, :48]) - y.cuda().flatten(1)[:, :48]).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
