"""The training process of tests/torchrun.rs, one per rank.

Usage: probe_train.py OUT_DIR [ARG...]

It writes OUT_DIR/started-RANK before anything else (the test asserts it was
never written when stagec must stop the rank), joins the gloo process group,
writes OUT_DIR/joined-RANK once `init_process_group` returned, all-gathers
what this rank saw (its STAGEC_* variables, the dtype they name, what a
sampler and a dropout mask seeded from them draw, the plan's environment,
its arguments) and, on rank 0, writes the list as OUT_DIR/ranks.json.
"""

import json
import os
import sys

out = sys.argv[1]
rank = os.environ.get("RANK", "unknown")
with open(os.path.join(out, f"started-{rank}"), "w") as f:
    f.write(str(os.getpid()))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

data_seed = int(os.environ["STAGEC_DATA_SEED"])
rank_seed = int(os.environ["STAGEC_RANK_SEED"])
dtype_name = os.environ["STAGEC_DTYPE"]
# A dtype torch knows (the name is `torch.<attribute>`), not only a string.
dtype = getattr(torch, dtype_name.split(".", 1)[-1])
assert isinstance(dtype, torch.dtype), dtype_name

# What a sampler seeded with the data seed draws (the same on every stage of
# a replica), and a dropout mask seeded with the rank seed (per process).
samples = torch.randperm(1000, generator=torch.Generator().manual_seed(data_seed))[:8].tolist()
dropout = torch.rand(4, generator=torch.Generator().manual_seed(rank_seed)).tolist()

dist.init_process_group("gloo")
with open(os.path.join(out, f"joined-{rank}"), "w") as f:
    f.write(str(os.getpid()))

mine = {
    "rank": dist.get_rank(),
    "world_size": dist.get_world_size(),
    "env_rank": int(rank),
    "stagec_rank": int(os.environ["STAGEC_RANK"]),
    "stage": int(os.environ["STAGEC_STAGE_ID"]),
    "replica": int(os.environ["STAGEC_REPLICA"]),
    "data_seed": data_seed,
    "rank_seed": rank_seed,
    "dtype": str(dtype),
    "plan": os.environ["STAGEC_PLAN"],
    "plan_environment": {
        k: os.environ.get(k)
        for k in ("PYTHONHASHSEED", "CUBLAS_WORKSPACE_CONFIG", "TORCH_NCCL_ASYNC_ERROR_HANDLING")
    },
    "launcher": {k: os.environ.get(k) for k in ("USE_TORCH_DISTRIBUTED", "DET_CHIEF_IP", "DET_TRIAL_SEED")},
    "args": sys.argv[2:],
    "samples": samples,
    "dropout": dropout,
}
everyone = [None] * dist.get_world_size()
dist.all_gather_object(everyone, mine)
if dist.get_rank() == 0:
    tmp = os.path.join(out, "ranks.json.tmp")
    with open(tmp, "w") as f:
        json.dump(everyone, f, indent=1)
    os.replace(tmp, os.path.join(out, "ranks.json"))
dist.barrier()
dist.destroy_process_group()
