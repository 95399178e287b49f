# stagec fixture: neg_s29_subset_sampler_over_rank_shard (look-alike of the sampler cases; Swin
#   Transformer's loader builder, copied by many repositories: in "part" cache mode each rank
#   keeps its own slice of the indices, `np.arange(rank, n, world)`, and a subset sampler
#   permutes that slice with the global RNG, seeded alike on every rank)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect: nothing: the same permutation orders a different slice of samples on each rank
# ----
import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader


class SubsetRandomSampler(torch.utils.data.Sampler):
    def __init__(self, indices):
        self.epoch = 0
        self.indices = indices

    def __iter__(self):
        return (self.indices[i] for i in torch.randperm(len(self.indices)))

    def __len__(self):
        return len(self.indices)

    def set_epoch(self, epoch):
        self.epoch = epoch


def main(dataset, part_cache, epochs=300):
    dist.init_process_group("nccl")
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 4).cuda())
    if part_cache:
        indices = np.arange(dist.get_rank(), len(dataset), dist.get_world_size())
        sampler = SubsetRandomSampler(indices)
    else:
        sampler = torch.utils.data.SubsetRandomSampler(np.arange(dist.get_rank(), len(dataset), dist.get_world_size()))
    loader = DataLoader(dataset, sampler=sampler, batch_size=32, persistent_workers=True, num_workers=2)
    for epoch in range(epochs):
        sampler.set_epoch(epoch) if hasattr(sampler, "set_epoch") else None
        for x in loader:
            model(x.cuda()).mean().backward()
