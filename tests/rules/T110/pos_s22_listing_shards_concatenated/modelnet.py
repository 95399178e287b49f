# stagec fixture: pos_s22_listing_shards_concatenated (issue 22, class 4: the rows of each h5
#                 shard an unsorted `glob.glob` lists are read in a `with` block and stacked by
#                 `np.concatenate` in listing order; the dataset indexes the stacked rows, so the
#                 sample at each position the DistributedSampler hands a rank depends on the
#                 directory order of its node)
# named: beside the other files, as pre-commit passes them
# expect:
#   T110 at 21:20 glob.glob() returns directory order, which can differ between ranks …
# ----
import glob
import os

import h5py
import numpy as np
from torch.utils.data import Dataset


def load_data(data_dir, partition):
    all_data = []
    all_label = []
    for h5_name in glob.glob(os.path.join(data_dir, "ply_data_%s*.h5" % partition)):
        with h5py.File(h5_name, "r") as f:
            data = f["data"][:].astype("float32")
            label = f["label"][:].astype("int64")
        all_data.append(data)
        all_label.append(label)
    all_data = np.concatenate(all_data, axis=0)
    all_label = np.concatenate(all_label, axis=0).squeeze(-1)
    return all_data, all_label


class ModelNet40(Dataset):
    def __init__(self, data_dir, partition="train"):
        self.data, self.label = load_data(data_dir, partition)

    def __getitem__(self, item):
        return self.data[item], self.label[item]

    def __len__(self):
        return self.data.shape[0]
