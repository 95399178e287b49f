# stagec fixture: pos_s21_listing_from_subclass_override (issue 22, class 4: the base dataset's
#                 `__init__` keeps `self.get_data_list()` as `self.data_list` and indexes it in
#                 `get_data`; this subclass's override returns an unsorted `glob.glob`, so the
#                 sample at each position the DistributedSampler hands a rank depends on the
#                 directory order of that rank's node)
# named: beside the other files, as pre-commit passes them
# expect:
#   T110 at 19:16 glob.glob() returns directory order, which can differ between ranks …
# ----
import glob
import os

from defaults import DefaultDataset


class RoomsDataset(DefaultDataset):
    def get_data_list(self):
        pattern = os.path.join(self.data_root, self.split, "scene_*/room_*.npy")
        return glob.glob(pattern)
