# stagec fixture: s25 neg_seeded_pick_helper (issue 22, class 3; review 33a's unicom: a helper
#                 seeds the global RNG from its own `seed` parameter and then picks the few-shot
#                 training samples with `torch.randperm`: a pick it means to repeat, on every
#                 rank and in every run)
# named: on the command line (`torchrun --nproc_per_node 8 knn.py`)
# expect: nothing
# ----
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, Subset, TensorDataset


def filter_train(n_items, n_per_class, seed):
    torch.manual_seed(seed)
    index = torch.randperm(n_items)[:n_per_class]
    return index.tolist()


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    data = TensorDataset(torch.randn(1000, 16), torch.randint(0, 10, (1000,)))
    subset = Subset(data, filter_train(len(data), 100, seed=0))
    loader = DataLoader(subset, batch_size=10, sampler=DistributedSampler(subset, shuffle=False))
    model = torch.nn.Linear(16, 10).cuda(rank)
    for x, y in loader:
        model(x.cuda(rank))


if __name__ == "__main__":
    main()
