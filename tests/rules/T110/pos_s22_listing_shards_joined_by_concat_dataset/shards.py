# stagec fixture: pos_s22_listing_shards_joined_by_concat_dataset (issue 22, class 4; mace's sharded
#   HDF5 data: one dataset per file an unsorted `glob` lists, joined by torch's `ConcatDataset`, whose
#   sample i is found by walking the files in that order, and sharded by a DistributedSampler)
# named: beside the other files, as pre-commit passes them
# expect:
#   T110 at 30:13 glob.glob() returns directory order, which can differ between ranks, and the datasets …
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
    files = glob(directory + "/*")
    datasets = []
    for file in files:
        datasets.append(HDF5Dataset(file))
    full_dataset = ConcatDataset(datasets)
    return full_dataset
