# stagec fixture: pos_s15_own_sampler_named_distributed (the dataset)
# named: beside the script, as pre-commit passes both
# context: one recursive glob kept unsorted; the script's own sampler, named as torch's but
#          deriving from Sampler, hands each rank positions in it by rank.
# expect:
#   T110 at 30:20 glob order is the sample order the ranks shard by position
# ----
import os.path as osp
import pickle
import random
from glob import glob

import torch
from torch.utils import data


class VideoClips(data.Dataset):
    video_exts = ["avi", "mp4", "webm"]

    def __init__(self, folder: str, frames: int = 17, cache_file: str = "idx.pkl"):
        self.folder = folder
        self.frames = frames
        self.samples = self._make_dataset(osp.join(folder, cache_file))

    def _make_dataset(self, cache_file: str):
        if osp.exists(cache_file):
            with open(cache_file, "rb") as f:
                return pickle.load(f)
        samples = []
        samples += glob(osp.join(self.folder, "**", "*.mp4"), recursive=True)
        return samples

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        clip = torch.load(self.samples[idx])
        start = random.randint(0, max(clip.shape[0] - self.frames, 0))
        return clip[start : start + self.frames]
