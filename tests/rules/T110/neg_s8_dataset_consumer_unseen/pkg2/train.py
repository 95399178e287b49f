# named: on the command line with the rest of the case
# ----
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main(model, batches, opt):
    """Each rank trains on the batches its caller hands it."""
    dist.init_process_group("nccl")
    model = DDP(model)
    for batch in batches:
        model(batch).mean().backward()
        opt.step()
