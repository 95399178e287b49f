# stagec fixture: h03_pos_except_continue_skips_backward
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 shard_train.py",
#          resources.slots_per_trial: 16
# runtime: torch.distributed (DDP)
# expect:
#   T103 at 41:13 the handler swallows an OSError raised by torch.load on
#        a per-rank shard path and `continue`s, skipping loss.backward() on the DDP model
#        (gradient all-reduce, line 47:13) and dist.all_reduce(seen) for this
#        shard. The other ranks enter those collectives and wait until the NCCL timeout.
#        No machine fix: re-raise, or agree on skipping (all_reduce a failure flag) first.
# ----
import glob
import logging
import os

import torch
import torch.distributed as dist
from torch import nn

log = logging.getLogger("shard_train")


def shard_paths(root: str, rank: int, world: int):
    files = sorted(glob.glob(os.path.join(root, "shard-*.pt")))
    usable = len(files) - len(files) % world
    return files[:usable][rank::world]


def main(root: str = "/mnt/shared/shards", epochs: int = 3) -> None:
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    model = nn.parallel.DistributedDataParallel(nn.Linear(1024, 1024).to(device), device_ids=[device])
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    seen = torch.zeros(1, device=device)

    for epoch in range(epochs):
        for path in shard_paths(root, rank, world):
            try:
                shard = torch.load(path, map_location="cpu")
            except OSError as err:
                log.warning("skipping unreadable shard %s: %s", path, err)
                continue
            x, y = shard["x"].to(device), shard["y"].to(device)
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen += len(x)
            dist.all_reduce(seen)
        if rank == 0:
            log.info("epoch %d: %d samples", epoch, int(seen.item()))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
