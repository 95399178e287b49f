# stagec fixture: neg_s14_balanced_barrier_with_flag (Semi-supervised-learning's set_dataset)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the balanced barrier pair (the other ranks wait while rank 0 prepares the data, then
#          rank 0 joins them), each test also reading the same `distributed` flag: every rank
#          runs one barrier, whatever the flag.
# expect: none
# ----
import torch
import torch.distributed as dist


class Algorithm:
    def __init__(self, distributed):
        self.rank = dist.get_rank() if distributed else 0
        self.distributed = distributed

    def set_dataset(self, build):
        if self.rank != 0 and self.distributed:
            torch.distributed.barrier()
        dataset = build()
        if self.rank == 0 and self.distributed:
            torch.distributed.barrier()
        return dataset


def prepare(rank, distributed, build):
    if rank != 0 and distributed:
        dist.barrier()
    data = build()
    if rank == 0 and distributed:
        dist.barrier()
    return data


def main():
    dist.init_process_group("nccl")
    Algorithm(True).set_dataset(list)
    prepare(dist.get_rank(), True, list)


if __name__ == "__main__":
    main()
