# stagec fixture: s11 neg_leave_and_collective_under_one_flag (issue 22, class 2; PixArt-alpha's
#                 all_gather_cpu as it is)
# named: on the command line (a distributed helper module)
# runtime: multi-rank (torch.distributed)
# expect: nothing
#   - `if collect_by_master and rank != 0: return None` leaves on all ranks but 0, and the
#     barrier after it runs only under `if not collect_by_master:`: where ranks leave, rank 0
#     skips the barrier too, and where it runs, no rank has left (the flag is the same
#     parameter, never rebound, in both tests).
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
    if not collect_by_master:
        synchronize()
    if rank == 0:
        shutil.rmtree(tmpdir)
    return results
