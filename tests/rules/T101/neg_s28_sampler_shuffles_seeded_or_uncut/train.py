# stagec fixture: s28 neg_sampler_shuffles_seeded_or_uncut (issue 22, class 3; the look-alikes
#                 of pos_s28_sampler_shuffles_before_rank_cut)
# named: on the command line (an mp.spawn script)
# expect:
#   T115 at 73:5 torch.manual_seed(2023) before mp.spawn seeds none of the ranks (not this case's
#        subject)
#   and no T101:
#   - the sampler shuffles with `random.Random(self.seed + self.epoch)`, alike on every rank;
#   - `ChunkSampler` shuffles with the global RNG but takes its chunks by a constant slice, not
#     by the rank.
# ----
import itertools
import math
import random

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


class BatchedDistributedSampler(DistributedSampler):
    def __init__(self, dataset, shuffle, batch_size, num_replicas=None, rank=None):
        super().__init__(dataset, num_replicas=num_replicas, rank=rank, shuffle=shuffle)
        self.num_samples = int(math.ceil(len(self.dataset) * 1.0 / self.num_replicas))
        self.batch_size = batch_size

    def __iter__(self):
        indices = list(range(len(self.dataset)))
        indices = [indices[i:i + n] for i, n in zip(self.dataset.offsets[:-1], self.dataset.lengths)]
        if self.shuffle:
            rng = random.Random(self.seed + self.epoch)
            for idx, subset in enumerate(indices):
                rng.shuffle(indices[idx])
        for idx, subset in enumerate(indices):
            r = len(subset) % self.batch_size
            if r > 0:
                indices[idx] = indices[idx][:-r]
        indices = list(itertools.chain(*indices))
        indices = [indices[i:i + self.batch_size] for i in range(0, len(indices), self.batch_size)]
        if self.shuffle:
            rng.shuffle(indices)
        per_rank = len(indices) // self.num_replicas
        start = self.rank * per_rank
        end = start + per_rank if self.rank != self.num_replicas - 1 else len(indices)
        return iter(list(itertools.chain(*(indices[start:end]))))


class ChunkSampler(DistributedSampler):
    """Shuffles with the global RNG, but every rank reads every chunk: no cut by rank."""

    def __iter__(self):
        indices = list(range(len(self.dataset)))
        indices = [indices[i:i + 64] for i in range(0, len(indices), 64)]
        random.shuffle(indices)
        head = indices[:4]
        return iter(list(itertools.chain(*head)))


def main_worker(gpu, ngpus, dataset):
    dist.init_process_group("nccl", rank=gpu, world_size=ngpus)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1).cuda(gpu), device_ids=[gpu])
    sampler = BatchedDistributedSampler(dataset, shuffle=True, batch_size=4)
    loader = DataLoader(dataset, sampler=sampler, batch_size=4)
    probe = DataLoader(dataset, sampler=ChunkSampler(dataset), batch_size=4)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch.cuda(gpu)).sum().backward()


if __name__ == "__main__":
    torch.manual_seed(2023)
    dataset = torch.load("volumes.pt")
    ngpus = torch.cuda.device_count()
    mp.spawn(main_worker, nprocs=ngpus, args=(ngpus, dataset))
