# stagec fixture: t22b neg_t22b_balanced_helpers
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 4
# runtime: torch.distributed; the look-alikes of pos_t22b_helper_collectives
# expect: none
#   - fetch_blob() is called on every rank (its own rank test is balanced).
#   - announce() on rank 0 and listen() on the others: one broadcast_object_list each.
#   - the chief saves (no collective in torch.save) and every rank then meets at the barrier.
#   - the chief decides, then every rank takes part in the broadcast of the choice.
#   - send_rows() under a rank test is point-to-point, rank-conditional by design.
#   - chief_first() is the balanced "local rank 0 first" barrier pair.
# ----
import argparse
import pickle

import torch
import torch.distributed as dist
from torch import nn

import comm_utils


def build(local_rank):
    with comm_utils.chief_first(local_rank):
        return nn.Linear(8, 1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--local_rank", type=int, default=-1)
    args = p.parse_args()
    dist.init_process_group("nccl")
    model = build(args.local_rank)
    state = pickle.loads(comm_utils.fetch_blob("/mnt/ckpt/state.pkl"))
    model.load_state_dict(state)
    if dist.get_rank() == 0:
        plan = comm_utils.announce({"epochs": 3})
    else:
        plan = comm_utils.listen()
    if dist.get_rank() == 0:
        comm_utils.send_rows(torch.zeros(4), dst=1)
    for epoch in range(plan["epochs"]):
        if comm_utils.is_chief():
            torch.save(model.state_dict(), f"/mnt/ckpt/{epoch}.pt")
        dist.barrier()
    choice = [max([1, 2]) if dist.get_rank() == 0 else None]
    dist.broadcast_object_list(choice, src=0)


if __name__ == "__main__":
    main()
