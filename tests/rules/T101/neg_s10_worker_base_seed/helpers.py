import os

import torch
import torch.distributed as dist


def rows(root):
    return sorted(os.listdir(root))


if __name__ == "__main__":
    dist.init_process_group("nccl", world_size=1, rank=0)
    torch.manual_seed(1)
    print(len(rows(".")))
