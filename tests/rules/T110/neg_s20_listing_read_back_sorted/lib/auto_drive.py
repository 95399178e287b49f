# stagec fixture: neg_s20_listing_read_back_sorted (the base dataset)
# named: on the command line, with lib/bdd.py and train.py
# context: the same datasets, but the subclass walks the listing sorted
#          (`tqdm(sorted(self.mask_list))`): every rank builds one order
# expect: nothing
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
