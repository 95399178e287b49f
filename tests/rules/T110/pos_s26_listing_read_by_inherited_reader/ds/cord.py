# stagec fixture: s26 pos_listing_read_by_inherited_reader (issue 22, class 4; doctr's
#                 doctr/datasets/cord.py: the receipts are listed unsorted into `self.data`, which
#                 the inherited reader indexes by the position a DistributedSampler hands out)
# named: on the command line, with train.py and ds/base.py
# expect:
#   T110 at 22:39 os.listdir order kept as `self.data`, read by position in the inherited
#        `_read_sample`
# ----
import json
import os

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
