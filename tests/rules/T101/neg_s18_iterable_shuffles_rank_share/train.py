# stagec fixture: s18 neg_iterable_shuffles_rank_share (issue 22, class 3; review 22b's
#                 MOSS-RLHF rm/reward_datahelper.py: the dataset keeps this rank's share of the
#                 list, `self.data[process_index::num_processes]`, and its workers shuffle it)
# named: on the command line (an accelerate script)
# runtime: multi-rank (Accelerator)
# expect: nothing: every rank shuffles its own samples; the same permutation of other samples
#         repeats nothing across ranks.
# ----
import argparse
import json
import random

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class PromptStream(IterableDataset):
    def __init__(self, path):
        super().__init__()
        with open(path) as f:
            self.data = json.load(f)
        accelerator = Accelerator()
        self.data = self.data[accelerator.process_index :: accelerator.num_processes]

    def __iter__(self):
        info = get_worker_info()
        if info is not None:
            self.data = self.data[info.id :: info.num_workers]
        random.shuffle(self.data)
        for sample in self.data:
            yield sample


def train(args, accelerator, model):
    loader = DataLoader(PromptStream(args.data), batch_size=None, num_workers=args.num_workers, persistent_workers=True)
    for epoch in range(args.epochs):
        for batch in loader:
            loss = model(batch)
            accelerator.backward(loss)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="prompts.json")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--num_workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    accelerator = Accelerator()
    model = torch.nn.Linear(4, 1)
    model = accelerator.prepare(model)
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    train(args, accelerator, model)


if __name__ == "__main__":
    main()
