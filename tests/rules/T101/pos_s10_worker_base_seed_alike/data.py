import torch
from torchvision import datasets, transforms


class DataAugmentation:
    def __init__(self, size):
        self.crop = transforms.Compose(
            [transforms.RandomResizedCrop(size), transforms.RandomHorizontalFlip(), transforms.ToTensor()]
        )

    def __call__(self, image):
        return [self.crop(image), self.crop(image)]


def build_loader(args):
    dataset = datasets.ImageFolder(args.data, transform=DataAugmentation(224))
    sampler = torch.utils.data.DistributedSampler(dataset, shuffle=True)
    return torch.utils.data.DataLoader(
        dataset,
        sampler=sampler,
        batch_size=64,
        num_workers=args.num_workers,
        persistent_workers=True,
        drop_last=True,
    )
