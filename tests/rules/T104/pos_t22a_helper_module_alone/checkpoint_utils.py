# stagec fixture: t22a pos_helper_module_alone (issue 22, class 1)
# named: on the command line alone (pre-commit passes the changed helper without its entry point)
# runtime: multi-rank: the module asks for its rank (dist.get_rank()); the process group is set
#          up by the training script that imports it
# expect:
#   T104 at 18:9 only rank 0 reaches this barrier; the other ranks go on to their next
#        collective and the job hangs (rank 0 waits here, the others wait where they are).
# ----
import os

import torch
import torch.distributed as dist


def load_latest(model, ckpt_dir):
    path = os.path.join(ckpt_dir, "latest.pt")
    if dist.get_rank() == 0:
        dist.barrier()
        model.load_state_dict(torch.load(path, map_location="cpu"))
    return model
