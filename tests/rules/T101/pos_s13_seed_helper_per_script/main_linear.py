# stagec fixture: pos_s13_seed_helper_per_script (the linear script; swav's shape)
# named: on the command line with utils.py and the other script (`torchrun --nproc_per_node=8 main_linear.py`)
# context: two entry scripts call one seeding helper with the same flag on every rank; each
#          script's loader has workers drawing random crops: reported at each script's call.
# expect:
#   T101 at 20:1 this script's `fix_random_seeds(args.seed)` seeds every rank alike
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from utils import MultiCrop, fix_random_seeds

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=31)
args = parser.parse_args()
dist.init_process_group("nccl")
fix_random_seeds(args.seed)
ds = MultiCrop(["/data/a.pt", "/data/b.pt"])
sampler = DistributedSampler(ds)
loader = DataLoader(ds, batch_size=64, sampler=sampler, num_workers=10, persistent_workers=True)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 3).cuda())
for epoch in range(100):
    sampler.set_epoch(epoch)
    for x, _ in loader:
        model(x.cuda()).sum().backward()
