# stagec fixture: neg_s22_listing_shards_concatenated_sorted (the shards are sorted before
#                 they are read and stacked: every rank holds the same rows in the same order)
# named: beside the other files, as pre-commit passes them
# expect: nothing
# ----
import glob
import os

import h5py
import numpy as np
from torch.utils.data import Dataset


def load_data(data_dir, partition):
    all_data = []
    all_label = []
    for h5_name in sorted(glob.glob(os.path.join(data_dir, "ply_data_%s*.h5" % partition))):
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
