# stagec fixture: neg_s34_sampler_rebuilt_each_epoch_with_epoch_seed (issue 22, review 45a's
#   mattersim look-alike of T102's positives: the trainer loads one pickled shard after another
#   and builds a new DistributedSampler for each, seeded with the epoch and the shard's index)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# runtime: multi-rank (init_process_group)
# expect: nothing (each epoch's sampler has its own seed, so no epoch repeats another's order)
# ----
import pickle
import random

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(model, optimizer, shard_paths, epochs, seed=42):
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(model.cuda())
    for epoch in range(epochs):
        random.Random(seed + epoch).shuffle(shard_paths)
        for idx, path in enumerate(shard_paths):
            with open(path, "rb") as f:
                shard = pickle.load(f)
            sampler = DistributedSampler(shard, seed=seed + idx * 131 + epoch)
            loader = DataLoader(shard, batch_size=32, num_workers=0, sampler=sampler)
            for batch in loader:
                loss = model(batch).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()


if __name__ == "__main__":
    train(torch.nn.Linear(8, 1), None, ["a.pkl", "b.pkl"], 10)
