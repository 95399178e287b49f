# stagec fixture: t22b pos_t22b_backward_in_step_helper
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 4
# runtime: torch.distributed, the model wrapped in DDP
# expect:
#   T103 at 38:13 `except OSError: continue` skips accumulate(), whose loss.backward() on the DDP
#        model all-reduces gradients; the optimizer steps in the caller (fit), so this backward is
#        a training step's and the other ranks wait in its all-reduce.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def accumulate(model, batch, parts):
    loss = model(batch).pow(2).mean() / parts
    loss.backward()
    return loss.detach()


def shard_files(root):
    rank = dist.get_rank()
    world = dist.get_world_size()
    return sorted(os.listdir(root))[rank::world]


def fit(root):
    dist.init_process_group("nccl")
    model = DDP(nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        for i, name in enumerate(shard_files(root)):
            try:
                batch = torch.load(os.path.join(root, name)).cuda()
            except OSError:
                print(f"skipping {name}")
                continue
            accumulate(model, batch, 4)
            if i % 4 == 3:
                opt.step()
                opt.zero_grad()


if __name__ == "__main__":
    fit("/mnt/shards")
