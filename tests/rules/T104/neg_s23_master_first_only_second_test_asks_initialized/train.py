# stagec fixture: neg_s23_master_first_only_second_test_asks_initialized (issue 22, class 2;
#   neuralangelo's shape: a context manager lets the master go first — the other ranks wait at a
#   barrier before the body, the master joins them after it — and only the second test also asks
#   `dist.is_initialized()`, which every rank of a multi-rank run answers yes: one barrier each)
# named: on the command line (a torchrun script)
# expect: nothing
# ----
from contextlib import contextmanager

import torch
import torch.distributed as dist


def get_rank():
    if not dist.is_initialized():
        return 0
    return dist.get_rank()


def is_master():
    return get_rank() == 0


def barrier():
    if dist.is_initialized():
        dist.barrier()


@contextmanager
def master_first():
    if not is_master():
        barrier()
    yield
    if dist.is_initialized() and is_master():
        barrier()


def main():
    dist.init_process_group("nccl")
    with master_first():
        data = torch.load("data.pt")
    return data


if __name__ == "__main__":
    main()
