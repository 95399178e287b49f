import random

import torch


class MelDataset(torch.utils.data.Dataset):
    def __init__(self, files, segment_size):
        self.files = files
        self.segment_size = segment_size

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        audio = torch.load(self.files[i])
        start = random.randint(0, max(0, audio.size(-1) - self.segment_size))
        return audio[..., start : start + self.segment_size]
