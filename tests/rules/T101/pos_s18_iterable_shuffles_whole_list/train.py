# stagec fixture: s18 pos_iterable_shuffles_whole_list (issue 22, class 3; the twin of
#                 review 22b's MOSS-RLHF shapes: the same streaming dataset without the
#                 rank's share or the entropy reseed)
# named: on the command line (an accelerate script)
# runtime: multi-rank (Accelerator)
# expect:
#   T101 at 37:25 the stream is split by worker, never by rank (another finding of the rule).
#   T101 at 55:5 every rank seeds torch with 42, the loader's 2 workers draw their base seeds
#        from it, and each worker shuffles the whole list alike on every rank: every rank
#        streams the same samples in the same order.
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
