# stagec fixture: t22b neg_t22b_fabric_and_rank_arguments
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 4
# runtime: torch.distributed, then Lightning Fabric; look-alikes of pos_t22b_fabric_and_logging_helpers
# expect: none
#   - make_loader(rank=-1) on rank 0 only: with rank -1 its "local rank 0 first" barriers are
#     skipped (the helper is called with the rank only on the path every rank takes).
#   - fabric.save() on every process; fabric.print() on rank 0 is no collective.
# ----
import contextlib

import lightning as L
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader


@contextlib.contextmanager
def zero_first(local_rank):
    if local_rank not in (-1, 0):
        dist.barrier()
    yield
    if local_rank == 0:
        dist.barrier()


def make_loader(rows, batch, rank=-1):
    with zero_first(rank):
        data = [torch.tensor(r) for r in rows]
    return DataLoader(data, batch_size=batch)


def main(local_rank, rows):
    dist.init_process_group("nccl")
    train = make_loader(rows, 32, rank=local_rank)
    if local_rank in (-1, 0):
        val = make_loader(rows, 64, rank=-1)
        print(len(train), len(val))
    fabric = L.Fabric(devices=4)
    fabric.launch()
    fabric.save("/mnt/checkpoints/state.ckpt", {"rows": len(rows)})
    if fabric.global_rank == 0:
        fabric.print("saved")
