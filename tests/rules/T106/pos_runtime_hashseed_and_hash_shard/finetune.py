# stagec fixture: h05_pos_runtime_hashseed_and_hash_shard
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 finetune.py",
#          resources.slots_per_trial: 2, environment.image determinedai/environments:cuda-11.8-pytorch-2.0-gpu-95c7a14,
#          environment.environment_variables: [NCCL_DEBUG=INFO] (no PYTHONHASHSEED)
# runtime: Determined Core API + torch.distributed
# expect:
#   T106 at 33:5 assigning PYTHONHASHSEED after the interpreter
#        started changes nothing for this process (str hashes were randomized at start-up) and
#        nothing started afterwards by this process re-reads it (no spawn/exec follows).
#        Fix (const.yaml): environment.environment_variables: - PYTHONHASHSEED=<seed>.
#   T109 at 38:39 hash(str) % world_size decides which rank reads a file: str hashes differ
#        between processes unless PYTHONHASHSEED is set at start-up, so ranks disagree (files
#        read twice or never).
# ----
import os
import random

import numpy as np
import torch
import torch.distributed as dist
from torch import nn

import determined as det


def set_seed(seed: int = 42) -> None:
    np.random.seed(seed)
    random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    os.environ["PYTHONHASHSEED"] = str(seed)


def my_files(root: str, rank: int, world: int) -> list:
    names = sorted(os.listdir(root))
    return [name for name in names if hash(name) % world == rank]


def main(core: det.core.Context, root: str = "/mnt/corpus") -> None:
    set_seed(42)
    rank, world = core.distributed.rank, core.distributed.size
    files = my_files(root, rank, world)
    model = nn.parallel.DistributedDataParallel(nn.Linear(768, 768).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    for step in range(200):
        x = torch.load(os.path.join(root, files[step % len(files)])).cuda()
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if rank == 0 and step % 50 == 0:
            core.train.report_training_metrics(steps_completed=step, metrics={"loss": loss.item()})


if __name__ == "__main__":
    dist.init_process_group("nccl")
    with det.core.init(distributed=det.core.DistributedContext.from_torch_distributed()) as ctx:
        main(ctx)
