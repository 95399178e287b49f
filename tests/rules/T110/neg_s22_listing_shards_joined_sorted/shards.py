# stagec fixture: neg_s22_listing_shards_joined_sorted (look-alike of
#   pos_s22_listing_shards_joined_by_concat_dataset: the shards are sorted before they are joined)
# named: beside the other files, as pre-commit passes them
# expect: nothing
# ----
from glob import glob

import h5py
import torch
from torch.utils.data import ConcatDataset, Dataset


class HDF5Dataset(Dataset):
    def __init__(self, file_path):
        self.file_path = file_path
        with h5py.File(file_path, "r") as f:
            self.length = len(f["x"])

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        with h5py.File(self.file_path, "r") as f:
            return torch.from_numpy(f["x"][index])


def dataset_from_sharded_hdf5(directory):
    files = sorted(glob(directory + "/*"))
    datasets = []
    for file in files:
        datasets.append(HDF5Dataset(file))
    full_dataset = ConcatDataset(datasets)
    return full_dataset
