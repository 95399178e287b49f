# stagec fixture: t22e pos_fabric_rank_through_ctor (issue 22, class 4; review mark M4, as
#                 lit-llama passes Fabric's rank)
# named: on the command line alone
# runtime: Lightning Fabric, launched: one process per device
# expect:
#   T110 at 37:17 the unsorted glob reaches a dataset whose slice starts at
#        `process_rank * workers + worker id`, where process_rank is `fabric.global_rank`
#        passed through a helper's `fabric` parameter.
# ----
import glob
import os

import lightning as L
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class Chunks(IterableDataset):
    def __init__(self, files, num_processes=1, process_rank=0):
        self._files = files
        self._num_processes = num_processes
        self._process_rank = process_rank

    def __iter__(self):
        info = get_worker_info()
        workers = info.num_workers if info is not None else 1
        wid = info.id if info is not None else 0
        shards = workers * self._num_processes
        shard = self._process_rank * workers + wid
        usable = len(self._files) // shards * shards
        for f in self._files[shard:usable:shards]:
            yield f


def make_loader(data_dir, fabric, batch_size=4):
    datasets = []
    for prefix in ("books", "web"):
        files = glob.glob(os.path.join(data_dir, prefix + "*"))
        datasets.append(Chunks(files, num_processes=fabric.world_size, process_rank=fabric.global_rank))
    return DataLoader(datasets[0], batch_size=batch_size)


def main(data_dir):
    fabric = L.Fabric(devices=4, strategy="ddp")
    fabric.launch()
    for batch in make_loader(data_dir, fabric):
        pass
