# stagec fixture: neg_s13_os_walk_sorted
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: no experiment config; each walk visits in a fixed order: `dirs` sorted in place
#          (which orders the descent) and files read through sorted(), or sorted in place
#          before use; a walk only counting files keeps no order.
# expect: none
# ----
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


def get_filelist(file_path):
    filelist = []
    for home, dirs, files in os.walk(file_path):
        dirs.sort()
        if not files:
            continue
        for filename in sorted(files):
            filelist.append(os.path.join(home, filename))
    return filelist


def count_files(root):
    total = 0
    for _, _, files in os.walk(root):
        total += len(files)
    return total


class FrameDataset(Dataset):
    def __init__(self, root):
        self.frames = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(dirs)
            files.sort()
            for name in files:
                self.frames.append(os.path.join(folder, name))
        self.total = count_files(root)

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
    for dataset in (VideoDataset("/data/videos"), FrameDataset("/data/frames")):
        sampler = DistributedSampler(dataset)
        loader = DataLoader(dataset, batch_size=8, sampler=sampler)
        for epoch in range(10):
            sampler.set_epoch(epoch)
            for batch in loader:
                pass


if __name__ == "__main__":
    main()
