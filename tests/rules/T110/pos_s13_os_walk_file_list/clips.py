# stagec fixture: pos_s13_os_walk_file_list (a dataset module)
# named: imported by train.py
# expect: none in this file (its walk sorts what it keeps)
# ----
import os

import torch
from torch.utils.data import Dataset


class ClipDataset(Dataset):
    def __init__(self, root):
        clips = []
        for home, dirs, files in os.walk(root):
            clips.extend(os.path.join(home, f) for f in files)
        self.clips = sorted(clips)

    def __getitem__(self, index):
        return torch.load(self.clips[index])

    def __len__(self):
        return len(self.clips)
