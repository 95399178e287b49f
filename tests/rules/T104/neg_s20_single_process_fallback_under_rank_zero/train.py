# stagec fixture: neg_s20_single_process_fallback_under_rank_zero (issue 22, class 2: rank 0
#                 calls a metrics helper whose only collective sits in its single-process
#                 fallback, `if not ddp:`, with `ddp` read from the world size it is passed: in a
#                 multi-rank run no rank takes that arm, so nothing waits)
# named: on the command line (`torchrun --nproc_per_node=4 train.py`, or mp.spawn)
# runtime: multi-rank (init_process_group)
# expect: nothing
# ----
import os

import torch
import torch.distributed as dist


def valid_multi_gpu(model, world_size):
    local = torch.tensor([float(model.weight.sum())])
    gathered = [torch.zeros_like(local) for _ in range(world_size)]
    dist.all_gather(gathered, local)
    return torch.cat(gathered).mean().item()


def compute_epoch_metrics(model, best, world_size=None, metrics_avg=None):
    ddp = True if world_size else False
    if not ddp:
        metrics_avg = valid_multi_gpu(model, 1)
    if metrics_avg > best:
        torch.save(model.state_dict(), "best.ckpt")
        best = metrics_avg
    return best


def train_model(rank=None, world_size=None):
    ddp = True if world_size else False
    if ddp:
        dist.init_process_group("nccl", rank=rank, world_size=world_size)
    model = torch.nn.Linear(4, 4)
    best = 0.0
    for epoch in range(10):
        if ddp:
            metrics_avg = valid_multi_gpu(model, world_size)
            if rank == 0:
                best = compute_epoch_metrics(model, best, world_size=world_size, metrics_avg=metrics_avg)
        else:
            best = compute_epoch_metrics(model, best)


if __name__ == "__main__":
    train_model(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
