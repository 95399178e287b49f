# stagec fixture: neg_s35_flag_set_from_rank_constant_world_per_rank_folder
# named: on the command line with logistic_eval.py and main.py
# expect: nothing
# ----
import torch.distributed as dist


def make_loader(data, world_size=None, rank=None):
    if world_size is None:
        world_size, rank = dist.get_world_size(), dist.get_rank()
    return [x for i, x in enumerate(data) if i % world_size == rank]
