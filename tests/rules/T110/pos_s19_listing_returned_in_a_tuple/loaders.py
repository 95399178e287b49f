# stagec fixture: s19 pos_listing_returned_in_a_tuple (issue 22, class 4: a private helper fills two
#                 lists made with `list()` from an unsorted listing and returns them as a tuple,
#                 unpacked into the dataset's fields; the dataset class reaches the sampler
#                 through a parameter, `klass(root, **kwargs)`)
# named: on the command line (the data module of a segmentation codebase)
# runtime: multi-rank (DistributedSampler)
# expect:
#   T110 at 34:26 os.listdir() returns directory order, which can differ between ranks …
# ----
import os

import torch
import torch.distributed as dist
from torch.utils import data


class SegFolder(data.Dataset):
    def __init__(self, root_dir, split="train", transform=None):
        self.transform = transform
        self.img_list, self.label_list = self.__list_dirs(root_dir, split)

    def __len__(self):
        return len(self.img_list)

    def __getitem__(self, index):
        return self.img_list[index], self.label_list[index]

    def __list_dirs(self, root_dir, split):
        img_list = list()
        label_list = list()
        image_dir = os.path.join(root_dir, split, "image")
        label_dir = os.path.join(root_dir, split, "label")
        img_extension = os.listdir(image_dir)[0].split(".")[-1]
        for file_name in os.listdir(label_dir):
            stem = ".".join(file_name.split(".")[:-1])
            img_path = os.path.join(image_dir, "{}.{}".format(stem, img_extension))
            if not os.path.exists(img_path):
                continue
            img_list.append(img_path)
            label_list.append(os.path.join(label_dir, file_name))
        return img_list, label_list


class DataHelper(object):
    def __init__(self, root, batch_size, workers):
        self.root = root
        self.batch_size = batch_size
        self.workers = workers

    def get_dataset_sampler(self, klass, split):
        dataset = klass(self.root, split=split)
        sampler = None
        if dist.is_initialized():
            sampler = data.distributed.DistributedSampler(dataset, shuffle=(split == "train"))
        return dataset, sampler

    def get_trainloader(self):
        dataset, sampler = self.get_dataset_sampler(SegFolder, "train")
        return data.DataLoader(
            dataset,
            batch_size=self.batch_size,
            sampler=sampler,
            shuffle=sampler is None,
            num_workers=self.workers,
            persistent_workers=True,
        )
