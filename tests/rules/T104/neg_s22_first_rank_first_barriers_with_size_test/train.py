# stagec fixture: neg_s22_first_rank_first_barriers_with_size_test (issue 22, class 2; vdvae's shape:
#   a context manager lets local rank 0 download first — the other ranks wait at a barrier before
#   the body, rank 0 joins them at one after it — and both tests also ask `mpi_size > 1`, one value
#   read twice: every rank calls one barrier)
# named: on the command line (an MPI-launched script)
# expect: nothing
# ----
from contextlib import contextmanager

import torch
import torch.distributed as dist


@contextmanager
def first_rank_first(local_rank, mpi_size):
    if mpi_size > 1 and local_rank > 0:
        dist.barrier()

    try:
        yield
    finally:
        if mpi_size > 1 and local_rank == 0:
            dist.barrier()


def main(local_rank, mpi_size):
    dist.init_process_group("nccl")
    with first_rank_first(local_rank, mpi_size):
        data = torch.load("data.pt")
    return data
