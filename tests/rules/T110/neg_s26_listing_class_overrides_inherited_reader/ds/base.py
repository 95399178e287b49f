# stagec fixture: s26 neg_listing_class_overrides_inherited_reader (the dataset bases)
# named: on the command line, with train.py and ds/cord.py
# context: doctr's layout: the base's `__getitem__` asks the abstract `_read_sample`, which the
#          torch-side base implements by position in `self.data`.
# expect: nothing
# ----
import torch


class _AbstractDataset:
    data: list = []

    def __len__(self):
        return len(self.data)

    def _read_sample(self, index):
        raise NotImplementedError

    def __getitem__(self, index):
        img, target = self._read_sample(index)
        return img, target


class AbstractDataset(_AbstractDataset):
    def _read_sample(self, index):
        name, target = self.data[index]
        return torch.load(name), target


class VisionDataset(AbstractDataset):
    def __init__(self, root):
        self.root = root
