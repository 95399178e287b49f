# stagec fixture: s8 pos_scandir_and_rank_index (issue 22, class 4; review 12a's M24 as
#                 SegFormer lists images with mmcv.scandir, review 12b's M1 as lingua hands
#                 each rank the chunk at its index)
# named: on the command line alone
# runtime: multi-rank (torchrun: DistributedSampler, and the launcher's RANK)
# expect:
#   T110 at 36:20 mmcv.scandir's names are appended, in that order, to a list the dataset keeps
#        (returned by a method) and indexes through a helper its __getitem__ calls.
#   T110 at 47:31 Path.glob's chunks, truncated to the world size, become the list each rank
#        takes its entry from by its rank.
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
        return self.prepare(idx)

    def prepare(self, idx):
        return self.img_infos[idx]

    def load_annotations(self, img_dir, suffix):
        infos = []
        for img in mmcv.scandir(img_dir, suffix, recursive=True):
            infos.append(dict(filename=img))
        return infos


def train_loader(img_dir):
    data = Segments(img_dir)
    return DataLoader(data, sampler=DistributedSampler(data), batch_size=2)


def chunk_for_rank(path, rank, world_size):
    chunks = [str(p) for p in Path(path).glob("*.jsonl")]
    if len(chunks) > world_size:
        chunks = chunks[:world_size]
    per_chunk = world_size // len(chunks)
    params = []
    for chunk in chunks:
        for i in range(per_chunk):
            params.append(dict(file=chunk, offset=i, block=per_chunk))
    return params[rank]


def main(path):
    dist.init_process_group("nccl")
    loader = train_loader(os.path.join(path, "images"))
    state = chunk_for_rank(path, int(os.environ["RANK"]), dist.get_world_size())
    return loader, state
