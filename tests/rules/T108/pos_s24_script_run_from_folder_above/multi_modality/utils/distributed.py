import torch.distributed as dist


def get_rank():
    return dist.get_rank() if dist.is_initialized() else 0
