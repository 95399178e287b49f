# stagec fixture: s31 neg_name_reused_by_a_later_listing_loop (the training script)
# named: on the command line (`torchrun --nproc_per_node 4 train.py`), with cityscapes.py
# expect: nothing
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from cityscapes import CityScapes


def main():
    dist.init_process_group("nccl")
    ds = CityScapes("./data")
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=8, sampler=sampler)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


if __name__ == "__main__":
    main()
