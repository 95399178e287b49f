# stagec fixture: neg_s35_export_script_imports_trainer (issue 22, class "other"; icefall's
#                 export.py and OLMo's convert scripts: a one-process script that imports
#                 the trainer's helpers)
# named: on the command line with export.py
# expect: nothing
#   the trainer saves from rank 0 only; the export script imports `get_model`
#   from it, so its program holds ranks, but its own code never reads a rank,
#   the world size or the distributed setup: it runs as one process, and its
#   `torch.save` is that process's.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def get_model(dim):
    return nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, 1))


def run(rank, world_size, out_dir):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)
    model = DDP(get_model(16).cuda(), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(1000):
        loss = model(torch.randn(32, 16, device="cuda")).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if rank == 0 and step % 100 == 0:
            torch.save(model.module.state_dict(), os.path.join(out_dir, f"step-{step}.pt"))
    dist.destroy_process_group()


if __name__ == "__main__":
    run(int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"]), os.environ.get("OUT", "exp"))
