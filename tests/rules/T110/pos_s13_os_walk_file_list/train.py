# stagec fixture: pos_s13_os_walk_file_list
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: no experiment config; a helper walks the data folder with os.walk and appends each
#          file it meets (Latte's shape); the dataset keeps that list and DistributedSampler
#          hands ranks positions in it. Even with `sorted(files)` the walk descends in the
#          directories' own order unless `dirs` is sorted in place.
# expect:
#   T110 at 22:30 the walk's order is the sample order of the first dataset
#   T110 at 31:36 files sorted per folder, folders in directory order
# ----
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from clips import ClipDataset


def get_filelist(file_path):
    filelist = []
    for home, dirs, files in os.walk(file_path):
        for filename in files:
            filelist.append(os.path.join(home, filename))
    return filelist


class FrameDataset(Dataset):
    def __init__(self, root):
        self.frames = []
        for folder, dirs, files in os.walk(root):
            for name in sorted(files):
                self.frames.append(os.path.join(folder, name))

    def __getitem__(self, index):
        return torch.load(self.frames[index])

    def __len__(self):
        return len(self.frames)


class VideoDataset(Dataset):
    def __init__(self, root):
        self.video_lists = get_filelist(root)

    def __getitem__(self, index):
        return torch.load(self.video_lists[index])

    def __len__(self):
        return len(self.video_lists)


def main():
    dist.init_process_group("nccl")
    for dataset in (VideoDataset("/data/videos"), FrameDataset("/data/frames"), ClipDataset("/data/clips")):
        sampler = DistributedSampler(dataset)
        loader = DataLoader(dataset, batch_size=8, sampler=sampler)
        for epoch in range(10):
            sampler.set_epoch(epoch)
            for batch in loader:
                pass


if __name__ == "__main__":
    main()
