# stagec fixture: neg_s21_listing_from_subclass_override_sorted (issue 22, class 4, a look-alike:
#                 the subclass's override sorts its listing before the base keeps it)
# named: beside the other files, as pre-commit passes them
# expect: nothing
# ----
import glob
import os

from defaults import DefaultDataset


class RoomsDataset(DefaultDataset):
    def get_data_list(self):
        pattern = os.path.join(self.data_root, self.split, "scene_*/room_*.npy")
        return sorted(glob.glob(pattern))
