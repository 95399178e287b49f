# stagec fixture: pos_s20_listing_read_back_by_a_subclass (the base dataset)
# named: on the command line, with lib/bdd.py and train.py
# context: a driving-perception codebase: the base dataset keeps an unsorted `iterdir()` of a
#          path joined with `/`; the subclass's `_get_db` walks it (through `tqdm(list(…))`),
#          adds one record per entry with `+=` and returns the list the base `__getitem__`
#          indexes; the script picks the class by name and shards it with a DistributedSampler
# expect:
#   T110 at 22:26 Path.iterdir() returns directory order, which can differ between ranks …
# ----
from pathlib import Path

import cv2
from torch.utils.data import Dataset


class AutoDriveDataset(Dataset):
    def __init__(self, cfg, is_train):
        mask_root = Path(cfg.DATASET.MASKROOT)
        indicator = cfg.DATASET.TRAIN_SET if is_train else cfg.DATASET.TEST_SET
        self.mask_root = mask_root / indicator
        self.img_root = Path(cfg.DATASET.DATAROOT) / indicator
        self.mask_list = self.mask_root.iterdir()
        self.db = []

    def __len__(self):
        return len(self.db)

    def __getitem__(self, idx):
        data = self.db[idx]
        return cv2.imread(data["image"]), cv2.imread(data["mask"])
