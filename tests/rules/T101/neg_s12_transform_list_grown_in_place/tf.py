import torchvision.transforms as transforms


def make_transforms(crop_size=224, center=True):
    transform_list = []
    transform_list += [transforms.Resize(crop_size + 32)]
    if center:
        transform_list.append(transforms.CenterCrop(crop_size))
    transform_list.extend([transforms.ToTensor()])
    transform = transforms.Compose(transform_list)
    return transform
