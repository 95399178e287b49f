# stagec fixture: t22b pos_t22b_helper_collectives (helper module)
# expect: none
#   Each helper is balanced on its own: fetch_blob() broadcasts on every rank
#   (rank 0 sends, the others receive), push_weights() and mean_loss() run their
#   collectives on every rank that calls them. The hazards are in train.py, which
#   calls them under rank tests.
# ----
import torch.distributed as dist
from mpi4py import MPI


def world_rank():
    if not dist.is_available() or not dist.is_initialized():
        return 0
    return dist.get_rank()


def is_chief():
    return not dist.is_initialized() or dist.get_rank() == 0


def fetch_blob(path):
    if MPI.COMM_WORLD.Get_rank() == 0:
        with open(path, "rb") as f:
            blob = f.read()
    else:
        blob = None
    return MPI.COMM_WORLD.bcast(blob, root=0)


def push_weights(params):
    for p in params:
        dist.broadcast(p.data, src=0)
