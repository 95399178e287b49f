import torchvision.transforms as transforms


def make_transforms(crop_size=224, horizontal_flip=False):
    transform_list = []
    transform_list += [transforms.RandomResizedCrop(crop_size)]
    if horizontal_flip:
        transform_list.append(transforms.RandomHorizontalFlip())
    transform_list += [transforms.ToTensor()]
    transform = transforms.Compose(transform_list)
    return transform
