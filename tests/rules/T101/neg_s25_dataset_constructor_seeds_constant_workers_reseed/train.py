# stagec fixture: s25 neg_dataset_constructor_seeds_constant_workers_reseed (issue 22, class 3;
#                 the look-alike of pos_s25_dataset_constructor_seeds_constant: the loader has
#                 workers, which torch reseeds from their own base seeds, and the rank
#                 seeds torch apart, so the constructor's constant no longer decides the crops)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import os
import random

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


def crop(audio, segment):
    start = random.randint(0, audio.size(0) - segment)
    return audio[start : start + segment]


class CodeDataset(Dataset):
    def __init__(self, files, segment):
        random.seed(1234)
        self.files = files
        self.segment = segment

    def __len__(self):
        return len(self.files)

    def __getitem__(self, index):
        audio = torch.load(self.files[index])
        return crop(audio, self.segment)


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    torch.manual_seed(1234 + dist.get_rank())
    trainset = CodeDataset([f"{i}.pt" for i in range(1000)], 8960)
    sampler = DistributedSampler(trainset)
    loader = DataLoader(trainset, num_workers=4, persistent_workers=True, shuffle=False, sampler=sampler, batch_size=16)
    model = torch.nn.Linear(8960, 1).cuda(rank)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for x in loader:
            model(x.cuda(rank)).mean().backward()


if __name__ == "__main__":
    main()
