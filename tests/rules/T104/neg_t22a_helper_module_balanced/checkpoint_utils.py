# stagec fixture: t22a neg_helper_module_balanced (issue 22, class 1 trap)
# named: on the command line alone (pre-commit passes the changed helper without its entry point)
# runtime: multi-rank: the module asks for its rank and world size
# expect: none.
#   The barrier is in both arms: rank 0 writes first and then joins, the others wait for it and
#   then read. Every rank reaches exactly one barrier.
# ----
import os

import torch
import torch.distributed as dist


def save_then_load(model, ckpt_dir):
    path = os.path.join(ckpt_dir, "latest.pt")
    if dist.get_rank() == 0:
        torch.save(model.state_dict(), path)
        dist.barrier()
    else:
        dist.barrier()
    if dist.get_world_size() > 1:
        model.load_state_dict(torch.load(path, map_location="cpu"))
    return model
