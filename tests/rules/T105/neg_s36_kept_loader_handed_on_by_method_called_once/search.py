# stagec fixture: neg_s36_kept_loader_handed_on_by_method_called_once (issue 22, review 46b: NOAH's evolution.py)
# named: on the command line with engine.py (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect: nothing
#   the searcher keeps the validation loader in `self.val_loader`; `score`
#   reads it from there and hands it to `evaluate`, which passes over it,
#   but `score` runs once, on the final candidate, after the search loop:
#   one pass, whose workers persistent_workers would not save.
# ----
import argparse
import random

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from engine import evaluate


class Searcher:
    def __init__(self, model, val_loader, population):
        self.model = model
        self.val_loader = val_loader
        self.population = population
        self.candidates = []

    def is_legal(self, cand):
        return cand % 2 == 0

    def score(self, cand):
        return evaluate(self.val_loader, self.model, cand)

    def get_random(self):
        while len(self.candidates) < self.population:
            cand = random.randint(1, 8)
            if not self.is_legal(cand):
                continue
            self.candidates.append(cand)

    def search(self, rounds):
        for _ in range(rounds):
            self.candidates = self.candidates[: self.population // 2]
            self.get_random()
        return self.score(max(self.candidates))


def main(args):
    dist.init_process_group("nccl")
    dataset = TensorDataset(torch.randn(256, 8), torch.randint(0, 2, (256,)))
    sampler = DistributedSampler(dataset, shuffle=False)
    loader = DataLoader(
        dataset, batch_size=32, sampler=sampler, num_workers=args.num_workers
    )
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 2).cuda())
    searcher = Searcher(model, loader, population=20)
    print(searcher.search(rounds=5))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_workers", default=10, type=int)
    main(parser.parse_args())
