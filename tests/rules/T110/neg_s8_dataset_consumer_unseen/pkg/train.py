# named: on the command line with the rest of the case
# ----
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from .data import Sorted, preview


def main(root, model, opt):
    dist.init_process_group("nccl")
    model = DDP(model)
    data = Sorted(root)
    sampler = DistributedSampler(data)
    loader = DataLoader(data, sampler=sampler, batch_size=8)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).mean().backward()
            opt.step()
        if dist.get_rank() == 0:
            preview(root)
