import torch
import torchvision


def make_loader(transform, batch_size, num_workers=8, world_size=1, rank=0):
    dataset = torchvision.datasets.ImageFolder("/data", transform=transform)
    sampler = torch.utils.data.distributed.DistributedSampler(dataset=dataset, num_replicas=world_size, rank=rank)
    loader = torch.utils.data.DataLoader(dataset, sampler=sampler, batch_size=batch_size, num_workers=num_workers)
    return dataset, loader, sampler
