# stagec fixture: t22h pos_worker_seed_factory_star (issue 22, class 3; third blind review)
# named: on the command line with the module it star-imports
# runtime: torchrun; the factory comes from `from loaders import *` and is picked by a flag
# expect:
#   T101 at 24:9 torch.manual_seed(seed + rank + worker id) in every worker: the sums
#        collide between ranks
# ----
import os

import torch
import torch.distributed as dist
from torch.utils.data import TensorDataset

from loaders import *

SEED = 99


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()

    def seed_worker(worker_id):
        torch.manual_seed(SEED + rank + worker_id)

    if os.environ.get("SYNTHETIC"):
        pick = synthetic_loader
    else:
        pick = torch_loader
    loader = pick(TensorDataset(torch.randn(512, 4)), 32, workers=4, _init=seed_worker)
    for epoch in range(2):
        for (x,) in loader:
            print(epoch, x.sum().item())


if __name__ == "__main__":
    main()
