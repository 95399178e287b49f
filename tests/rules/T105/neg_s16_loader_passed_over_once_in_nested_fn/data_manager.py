# stagec fixture: neg_s16_loader_passed_over_once_in_nested_fn (the loader builder)
# named: on the command line with fine_tune.py
# context: pos_s16_loader_passed_over_in_nested_step's builder, but the script passes over the
#          loader once, in a function nested in `main` that is called once after training: the
#          workers start once.
# expect: none
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
