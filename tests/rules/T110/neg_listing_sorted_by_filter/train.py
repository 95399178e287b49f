# stagec fixture: neg_listing_sorted_by_filter (look-alike of pos_listing_dataset_sampler; YOLOv6's
#   dataset)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: none: the globbed paths are gathered with `+=`, then rebound to a sorted, filtered copy
#   (`paths = sorted(p for p in paths if …)`) before the dataset keeps them
# ----
import glob
import os.path as osp

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler

IMG_FORMATS = ("jpg", "png")


class TrainValDataset(Dataset):
    def __init__(self, img_dirs):
        self.img_paths = self.get_imgs(img_dirs)

    def get_imgs(self, img_dirs):
        img_paths = []
        for img_dir in img_dirs:
            img_paths += glob.glob(osp.join(img_dir, "**/*"), recursive=True)
        img_paths = sorted(p for p in img_paths if p.split(".")[-1].lower() in IMG_FORMATS)
        return img_paths

    def __len__(self):
        return len(self.img_paths)

    def __getitem__(self, i):
        return torch.tensor(len(self.img_paths[i]))


def main():
    dist.init_process_group("nccl")
    data = TrainValDataset(["images/train"])
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=16, sampler=sampler)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for x in loader:
            print(x.sum())


if __name__ == "__main__":
    main()
