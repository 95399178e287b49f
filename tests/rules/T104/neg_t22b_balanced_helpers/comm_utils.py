# stagec fixture: t22b neg_t22b_balanced_helpers (helper module)
# expect: none
#   The helpers are balanced: every rank that calls them enters the same collectives.
# ----
import contextlib

import torch.distributed as dist
from mpi4py import MPI


def is_chief():
    return not dist.is_initialized() or dist.get_rank() == 0


def fetch_blob(path):
    if MPI.COMM_WORLD.Get_rank() == 0:
        with open(path, "rb") as f:
            blob = f.read()
    else:
        blob = None
    return MPI.COMM_WORLD.bcast(blob, root=0)


def announce(obj):
    box = [obj]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def listen():
    box = [None]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def send_rows(rows, dst):
    dist.send(rows, dst=dst)


@contextlib.contextmanager
def chief_first(local_rank):
    if local_rank not in (-1, 0):
        dist.barrier()
    yield
    if local_rank == 0:
        dist.barrier()
