# stagec fixture: s25 pos_staggered_context_manager_unbalanced (issue 22, class 2; the look-alike of
#                 neg_s25_staggered_context_manager: the exit forgets the odd ranks' barrier,
#                 so even ranks run two barriers and odd ranks one)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T104 at 21:13 only even ranks wait here; the odd ranks never join a matching barrier.
# ----
import os

import torch
import torch.distributed as dist


class staggered_object_creation:
    def __init__(self, local_rank, world_size):
        self.local_rank = local_rank
        self.world_size = world_size

    def __enter__(self, *args):
        if self.world_size > 1 and self.local_rank % 2 == 0:
            dist.barrier()
        return self

    def __exit__(self, *args):
        if self.world_size > 1:
            dist.barrier()


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    with staggered_object_creation(local_rank, dist.get_world_size()):
        model = torch.nn.Linear(1024, 1024)
    model.cuda(local_rank)


if __name__ == "__main__":
    main()
