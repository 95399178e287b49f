# stagec fixture: s19 neg_listing_read_whole_by_a_test_loader (issue 22, class 4; the look-alike of
#                 pos_s19_listing_returned_in_a_tuple: the listed test set goes only into a plain
#                 `DataLoader` without a sampler, returned to callers out of sight; each rank reads
#                 all of it, so its order shards nothing — the training set is sharded, but not
#                 from a listing)
# named: on the command line (the data module of a segmentation codebase)
# runtime: multi-rank (DistributedSampler)
# expect: nothing
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

    def get_trainloader(self):
        dataset = data.TensorDataset(torch.load(os.path.join(self.root, "train.pt")))
        sampler = data.distributed.DistributedSampler(dataset)
        return data.DataLoader(dataset, batch_size=self.batch_size, sampler=sampler)

    def get_testloader(self):
        return data.DataLoader(
            SegFolder(self.root, split="test"),
            batch_size=1,
            shuffle=False,
            num_workers=self.workers,
        )
