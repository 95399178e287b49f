# stagec fixture: neg_s20_listing_read_back_sorted (the subclass)
# named: on the command line
# ----
from tqdm import tqdm

from .auto_drive import AutoDriveDataset


class BddDataset(AutoDriveDataset):
    def __init__(self, cfg, is_train):
        super().__init__(cfg, is_train)
        self.db = self._get_db()

    def _get_db(self):
        gt_db = []
        for mask in tqdm(sorted(self.mask_list)):
            mask_path = str(mask)
            image_path = mask_path.replace(str(self.mask_root), str(self.img_root)).replace(".png", ".jpg")
            rec = [{"image": image_path, "mask": mask_path}]
            gt_db += rec
        return gt_db
