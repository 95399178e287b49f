# stagec fixture: s26 neg_megatron_data_parallel_rank_workers (issue 22, class 3; tevatron's
#                 Megatron reranker: every rank seeds torch with one seed and the loader's
#                 workers draw negatives with `random.choices`, but the sampler shards by the
#                 data-parallel rank: the tensor-parallel peers of a group must read the same
#                 samples, negatives included, so equal worker seeds are the design)
# named: on the command line (`torchrun --nproc_per_node 8 train.py --tensor_model_parallel_size 2`)
# expect: nothing
# ----
import argparse
import os
import random

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class RerankerTrainDataset(Dataset):
    def __init__(self, groups, depth=8):
        self.groups = groups
        self.depth = depth

    def __len__(self):
        return len(self.groups)

    def __getitem__(self, i):
        query, positive, negatives = self.groups[i]
        picked = random.choices(negatives, k=self.depth - 1)
        return query, [positive] + picked


class Engine:
    def __init__(self, tensor_model_parallel_size):
        self.tp = tensor_model_parallel_size

    def get_data_parallel_rank(self):
        return dist.get_rank() // self.tp

    def get_data_parallel_size(self):
        return dist.get_world_size() // self.tp

    def step(self, batch):
        return torch.zeros(1, requires_grad=True).sum()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tensor_model_parallel_size", type=int, default=1)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    torch.manual_seed(args.seed)
    engine = Engine(args.tensor_model_parallel_size)
    groups = [(f"q{i}", f"p{i}", [f"n{i}_{j}" for j in range(20)]) for i in range(10000)]
    dataset = RerankerTrainDataset(groups)
    sampler = DistributedSampler(
        dataset, num_replicas=engine.get_data_parallel_size(), rank=engine.get_data_parallel_rank(), shuffle=True
    )
    loader = DataLoader(dataset, batch_size=16, sampler=sampler, num_workers=4, persistent_workers=True)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            loss = engine.step(batch)
            loss.backward()


if __name__ == "__main__":
    main()
