# stagec fixture: s26 pos_listing_read_by_helper_a_base_getitem_calls (issue 22, class 4;
#                 co-tracker's kubric_movif_dataset.py: the base's `__getitem__` calls the
#                 subclass's `getitem_helper`, which reads the unsorted listing by position; the
#                 loader is sharded by the LightningLite that sets it up)
# named: on the command line, with train.py
# expect:
#   T110 at 30:38 os.listdir order kept as `self.seq_names`, read by position in getitem_helper
# ----
import os

import torch
from torch.utils.data import Dataset


class CoTrackerDataset(Dataset):
    def __init__(self, root):
        self.root = root

    def __getitem__(self, index):
        sample, ok = self.getitem_helper(index)
        return sample, ok

    def getitem_helper(self, index):
        raise NotImplementedError


class KubricDataset(CoTrackerDataset):
    def __init__(self, root):
        super().__init__(root)
        self.seq_names = [f for f in os.listdir(root) if os.path.isdir(os.path.join(root, f))]

    def __len__(self):
        return len(self.seq_names)

    def getitem_helper(self, index):
        name = self.seq_names[index]
        return torch.load(os.path.join(self.root, name, "clip.pt")), True
