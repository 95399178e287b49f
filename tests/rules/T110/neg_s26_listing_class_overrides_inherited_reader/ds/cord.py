# stagec fixture: s26 neg_listing_class_overrides_inherited_reader (issue 22, class 4; the
#                 look-alike of pos_s26_listing_read_by_inherited_reader: the class reads its
#                 samples by the receipt id the sampler's position maps to in a sorted index, with
#                 a reader of its own, so the listing order keeps no sample's position)
# named: on the command line, with train.py and ds/base.py
# expect: nothing
# ----
import json
import os

import torch

from tqdm import tqdm

from .base import VisionDataset


class CORD(VisionDataset):
    def __init__(self, root):
        super().__init__(root)
        tmp_root = os.path.join(root, "image")
        self.data = []
        for img_path in tqdm(iterable=os.listdir(tmp_root), desc="Loading CORD"):
            with open(os.path.join(root, "json", img_path + ".json")) as f:
                self.data.append((os.path.join(tmp_root, img_path), json.load(f)))
        self.by_id = {os.path.basename(name): (name, target) for name, target in self.data}
        self.ids = sorted(self.by_id)

    def _read_sample(self, index):
        name, target = self.by_id[self.ids[index]]
        return torch.load(name), target
