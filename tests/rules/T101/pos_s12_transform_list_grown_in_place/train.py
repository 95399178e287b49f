# stagec fixture: pos_s12_transform_list_grown_in_place (issue 22, class 3: ijepa's shape)
# named: on the command line (the script, its loader builder and its transforms)
# runtime: multi-rank (init_process_group, DistributedSampler, DDP)
# expect:
#   T101 at 18:1 the module seeds torch with one constant on every rank; the loader's
#        8 workers take their base seeds from it, and the dataset applies a transform
#        list grown in place (`transform_list += [RandomResizedCrop(…)]`) in them.
# ----
import numpy as np
import torch
import torch.distributed as dist

from data import make_loader
from tf import make_transforms

_GLOBAL_SEED = 0
np.random.seed(_GLOBAL_SEED)
torch.manual_seed(_GLOBAL_SEED)


def main():
    dist.init_process_group("nccl")
    world_size, rank = dist.get_world_size(), dist.get_rank()
    transform = make_transforms(crop_size=224)
    _, loader, sampler = make_loader(transform=transform, batch_size=64, world_size=world_size, rank=rank)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = model(x.cuda()).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
