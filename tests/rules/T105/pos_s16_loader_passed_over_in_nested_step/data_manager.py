# stagec fixture: pos_s16_loader_passed_over_in_nested_step (the loader builder)
# named: on the command line with fine_tune.py
# context: suncet's shape: the loader and its sampler are returned as a pair from a builder
#          behind a dispatcher, unpacked by the script, and passed over in a function defined
#          inside its epoch loop (`def train_step():`), called there once per epoch.
# expect:
#   T105 at 30:9 8 workers on every rank, restarted at each epoch's train_step()
# ----
import torch


def init_data(dataset_name, batch_size, world_size=1, rank=0):
    if dataset_name == "cifar10_fine_tune":
        return _init_cifar10_ft_data(batch_size=batch_size, world_size=world_size, rank=rank)
    raise ValueError(dataset_name)


def _init_cifar10_ft_data(batch_size, world_size=1, rank=0, drop_last=False):
    dataset = torch.utils.data.TensorDataset(torch.randn(2048, 64), torch.randint(0, 10, (2048,)))
    dist_sampler = torch.utils.data.distributed.DistributedSampler(
        dataset=dataset,
        num_replicas=world_size,
        rank=rank)
    data_loader = torch.utils.data.DataLoader(
        dataset,
        sampler=dist_sampler,
        batch_size=batch_size,
        drop_last=drop_last,
        pin_memory=True,
        num_workers=8)
    return (data_loader, dist_sampler)
