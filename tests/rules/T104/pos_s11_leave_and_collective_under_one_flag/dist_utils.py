# stagec fixture: s11 pos_leave_and_collective_under_one_flag (issue 22, class 2; the look-alike
#                 of neg_s11_leave_and_collective_under_one_flag whose barrier does wait)
# named: on the command line (a distributed helper module)
# runtime: multi-rank (torch.distributed)
# expect:
#   T104 at 38:9 `return None` leaves on every rank but 0 where `collect_by_master` is set, and
#        rank 0 then enters the barrier under `if collect_by_master:` alone.
# ----
import os
import pickle
import shutil

import torch.distributed as dist
from mmcv.runner import get_dist_info


def synchronize():
    if not dist.is_available():
        return
    if not dist.is_initialized():
        return
    if dist.get_world_size() == 1:
        return
    dist.barrier()


def all_gather_cpu(result_part, tmpdir=None, collect_by_master=True):
    rank, world_size = get_dist_info()
    if tmpdir is None:
        tmpdir = "./tmp"
    if rank == 0:
        os.makedirs(tmpdir, exist_ok=True)
    synchronize()
    with open(os.path.join(tmpdir, f"part_{rank}.pkl"), "wb") as f:
        pickle.dump(result_part, f)
    synchronize()
    if collect_by_master and rank != 0:
        return None
    results = []
    for i in range(world_size):
        with open(os.path.join(tmpdir, f"part_{i}.pkl"), "rb") as f:
            results.append(pickle.load(f))
    if collect_by_master:
        synchronize()
    if rank == 0:
        shutil.rmtree(tmpdir)
    return results
