# stagec fixture: s10 pos_worker_base_seed_module_level (issue 22, class 3; review 10a's msn and
#                 6b's hifi-gan: the seed set once at import, a dataset that crops at random in
#                 __getitem__)
# named: on the command line (a torchrun script)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect:
#   T101 at 23:1 `torch.manual_seed(_GLOBAL_SEED)` (0) on every rank; the loader's 4 workers
#        take their base seed from it, so worker k of every rank cuts the same random segments.
# ----
import os
import random

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

_GLOBAL_SEED = 0
SEGMENT = 8192
NUM_WORKERS = 4

random.seed(_GLOBAL_SEED)
torch.manual_seed(_GLOBAL_SEED)


class AudioSegments(Dataset):
    def __init__(self, files):
        self.files = sorted(files)

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        audio = torch.load(self.files[i])
        start = random.randint(0, max(0, audio.size(0) - SEGMENT))
        return audio[start : start + SEGMENT]


def train(files):
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dataset = AudioSegments(files)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=16, sampler=sampler, shuffle=False, num_workers=NUM_WORKERS)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass
