# stagec fixture: h03_neg_agreed_skip_and_chief_io
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 robust.py",
#          resources.slots_per_trial: 8
# runtime: Determined Core API + torch.distributed
# expect: no finding.
#   - The OSError handler records the failure in `ok` and falls through; all ranks then
#     all_reduce the flag and skip the step together (`if ok.item() < world: continue` is taken on
#     every rank or on none), so no rank misses a collective the others enter.
#   - The chief-only upload is wrapped in try/except that logs and moves on: the region it skips
#     (the rest of the with-block on rank 0) holds no collective; store_path with shard=False is
#     chief-only by design.
#   - resume_step(): `except FileNotFoundError: return 0` skips only local reads.
# ----
import json
import logging
import os

import torch
import torch.distributed as dist
from torch import nn

import determined as det


def resume_step(path: str) -> int:
    try:
        with open(path) as f:
            state = json.load(f)
    except FileNotFoundError:
        return 0
    return int(state["step"])


def main(core: det.core.Context, root: str = "/mnt/data") -> None:
    rank, world = core.distributed.rank, core.distributed.size
    device = torch.device("cuda", core.distributed.local_rank)
    model = nn.parallel.DistributedDataParallel(nn.Linear(512, 10).to(device), device_ids=[device])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    start = resume_step(os.path.join(root, "progress.json"))

    for step in range(start, 1000):
        ok = torch.ones(1, device=device)
        try:
            x = torch.load(os.path.join(root, f"batch-{step}-{rank}.pt")).to(device)
        except OSError:
            ok.zero_()
            x = torch.zeros(64, 512, device=device)
        dist.all_reduce(ok)
        if ok.item() < world:
            continue
        loss = model(x).logsumexp(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0 and rank == 0:
            with core.checkpoint.store_path({"steps_completed": step}) as (path, _):
                try:
                    torch.save(model.module.state_dict(), path / "weights.pt")
                except OSError as e:
                    logging.warning("checkpoint write failed: %s", e)


if __name__ == "__main__":
    dist.init_process_group("nccl")
    with det.core.init(distributed=det.core.DistributedContext.from_torch_distributed()) as ctx:
        main(ctx)
