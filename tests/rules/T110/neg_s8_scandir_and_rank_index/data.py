# stagec fixture: s8 neg_scandir_and_rank_index (issue 22, class 4; the look-alikes of
#                 pos_s8_scandir_and_rank_index)
# named: on the command line alone
# runtime: multi-rank (torchrun: DistributedSampler, and the launcher's RANK)
# expect: nothing
#   - the scandir names are sorted before the dataset keeps them;
#   - the chunk list is sorted before each rank takes its entry;
#   - a listing indexed by a counter that is the same on every rank (`files[step % n]`).
# ----
import os
from pathlib import Path

import mmcv
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Segments(Dataset):
    def __init__(self, img_dir, suffix=".jpg"):
        self.img_infos = self.load_annotations(img_dir, suffix)

    def __len__(self):
        return len(self.img_infos)

    def __getitem__(self, idx):
        return self.img_infos[idx]

    def load_annotations(self, img_dir, suffix):
        infos = []
        for img in sorted(mmcv.scandir(img_dir, suffix, recursive=True)):
            infos.append(dict(filename=img))
        return infos


def chunk_for_rank(path, rank, world_size):
    chunks = sorted(str(p) for p in Path(path).glob("*.jsonl"))
    return chunks[rank % len(chunks)]


def preview(path, step):
    files = os.listdir(path)
    return files[step % len(files)]


def main(path, steps):
    dist.init_process_group("nccl")
    data = Segments(os.path.join(path, "images"))
    loader = DataLoader(data, sampler=DistributedSampler(data), batch_size=2)
    state = chunk_for_rank(path, int(os.environ["RANK"]), dist.get_world_size())
    for step in range(steps):
        print(preview(path, step))
    return loader, state
