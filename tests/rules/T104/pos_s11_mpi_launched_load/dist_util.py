# stagec fixture: s11 pos_mpi_launched_load (the distributed helpers)
# named: on the command line with train_util.py
# expect: none in this file (each helper is balanced on its own)
# ----
import io
import os

import torch as th
import torch.distributed as dist
from mpi4py import MPI


def setup_dist():
    if dist.is_initialized():
        return
    comm = MPI.COMM_WORLD
    os.environ["RANK"] = str(comm.rank)
    os.environ["WORLD_SIZE"] = str(comm.size)
    dist.init_process_group(backend="nccl", init_method="env://")


def load_state_dict(path, **kwargs):
    chunk_size = 2**30
    if MPI.COMM_WORLD.Get_rank() == 0:
        with open(path, "rb") as f:
            data = f.read()
        num_chunks = len(data) // chunk_size + 1
        MPI.COMM_WORLD.bcast(num_chunks)
        for i in range(0, len(data), chunk_size):
            MPI.COMM_WORLD.bcast(data[i : i + chunk_size])
    else:
        num_chunks = MPI.COMM_WORLD.bcast(None)
        data = bytes()
        for _ in range(num_chunks):
            data += MPI.COMM_WORLD.bcast(None)
    return th.load(io.BytesIO(data), **kwargs)


def sync_params(params):
    for p in params:
        with th.no_grad():
            dist.broadcast(p, 0)
