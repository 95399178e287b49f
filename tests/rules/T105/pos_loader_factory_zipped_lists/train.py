# stagec fixture: pos_loader_factory_zipped_lists (the training script)
# named: on the command line with data/__init__.py and probe.py
# expect: none in this file (the factory's loader is reported where it is built)
# ----
import torch
import torch.distributed as dist
from torch.utils.data import TensorDataset

from data import create_loader, create_sampler


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    world = dist.get_world_size()
    train_set = TensorDataset(torch.randn(4096, 16))
    val_set = TensorDataset(torch.randn(512, 16))
    samplers = create_sampler([train_set, val_set], [True, False], world, rank)
    train_loader, val_loader = create_loader(
        [train_set, val_set], samplers, batch_size=[32, 64], num_workers=[4, 4], is_trains=[True, False]
    )
    for epoch in range(10):
        samplers[0].set_epoch(epoch)
        for (x,) in train_loader:
            x.sum()
    for (x,) in val_loader:
        x.mean()


if __name__ == "__main__":
    main()
