# stagec fixture: neg_s15_joined_listings_sorted (the script)
# named: on the command line (`torchrun --nproc_per_node=8 train_vae.py`)
# ----
import math

import torch
import torch.distributed as dist
from clips import VideoClips
from torch import nn
from torch.utils.data import DataLoader, Sampler


class CustomDistributedSampler(Sampler):
    def __init__(self, dataset, shuffle: bool = True, seed: int = 0):
        self.dataset = dataset
        self.rank = dist.get_rank()
        self.replicas = dist.get_world_size()
        self.per_rank = math.ceil(len(dataset) / self.replicas)
        self.shuffle = shuffle
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __iter__(self):
        order = list(range(len(self.dataset)))
        if self.shuffle:
            g = torch.Generator()
            g.manual_seed(self.seed + self.epoch)
            order = torch.randperm(len(self.dataset), generator=g).tolist()
        return iter(order[self.rank * self.per_rank : (self.rank + 1) * self.per_rank])

    def __len__(self):
        return self.per_rank


def main():
    dist.init_process_group("nccl")
    dataset = VideoClips("/data/videos")
    sampler = CustomDistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=1, sampler=sampler, persistent_workers=True, num_workers=4)
    model = nn.parallel.DistributedDataParallel(nn.Conv3d(3, 3, 3).cuda())
    opt = torch.optim.Adam(model.parameters(), lr=1e-5)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for clip in loader:
            loss = model(clip.cuda()).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
