# stagec fixture: pos_dataset_built_through_registry
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: no experiment config; the dataset class is looked up in a module-level registry
#          (`_DATASETS[name](path, split)`, pycls' shape) and its image list, read from an
#          unsorted os.listdir per class, is what DistributedSampler shards by position.
# expect:
#   T110 at 25:25 the per-class listing is the sample order each rank takes positions of
# ----
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class ImageFolderDB(Dataset):
    def __init__(self, root, split):
        self._root = os.path.join(root, split)
        self._construct_db()

    def _construct_db(self):
        self._db = []
        for class_id in sorted(os.listdir(self._root)):
            class_dir = os.path.join(self._root, class_id)
            for name in os.listdir(class_dir):
                self._db.append({"path": os.path.join(class_dir, name), "label": class_id})

    def __getitem__(self, index):
        return torch.load(self._db[index]["path"])

    def __len__(self):
        return len(self._db)


class Synthetic(Dataset):
    def __getitem__(self, index):
        return torch.zeros(3)

    def __len__(self):
        return 1000


_DATASETS = {"imagenet": ImageFolderDB, "synthetic": Synthetic}


def construct_loader(name, split, batch_size):
    dataset = _DATASETS[name]("/data", split)
    sampler = DistributedSampler(dataset) if dist.get_world_size() > 1 else None
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, shuffle=sampler is None)


def main():
    dist.init_process_group("nccl")
    loader = construct_loader("imagenet", "train", 64)
    for epoch in range(10):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            pass


if __name__ == "__main__":
    main()
