# stagec fixture: s26 pos_listing_read_by_inherited_reader (the training script)
# named: on the command line, with ds/cord.py and ds/base.py (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from ds.cord import CORD


def main():
    dist.init_process_group("nccl")
    train_set = CORD("/data/cord")
    sampler = DistributedSampler(train_set, shuffle=True, drop_last=True)
    loader = DataLoader(train_set, batch_size=16, sampler=sampler)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1))
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for img, target in loader:
            model(img).mean().backward()
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main()
