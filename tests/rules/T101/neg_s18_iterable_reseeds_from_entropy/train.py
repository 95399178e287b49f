# stagec fixture: s18 neg_iterable_reseeds_from_entropy (issue 22, class 3; review 22b's
#                 MOSS-RLHF ppo/ppo_datahelper.py: `random.seed(None)` in the worker's
#                 generator reseeds Python's RNG from the system's entropy before it draws)
# named: on the command line (a torchrun script)
# runtime: multi-rank (init_process_group)
# expect: nothing: the workers' draws differ between ranks whatever their base seeds.
# ----
import argparse
import json
import random

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class ClipStream(IterableDataset):
    def __init__(self, files):
        super().__init__()
        self.files = files

    def __iter__(self):
        random.seed(None)
        info = get_worker_info()
        workers = info.num_workers if info is not None else 1
        worker = info.id if info is not None else 0
        rank, world = dist.get_rank(), dist.get_world_size()
        shard = self.files[rank * workers + worker :: world * workers]
        for path in shard:
            with open(path) as f:
                clip = torch.tensor(json.load(f))
            if random.random() < 0.5:
                clip = clip.flip(-1)
            yield clip


def train(args, model, optimizer):
    loader = DataLoader(ClipStream(args.files), batch_size=8, num_workers=args.workers, persistent_workers=True)
    for epoch in range(args.epochs):
        for batch in loader:
            loss = model(batch).mean()
            loss.backward()
            optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    model = torch.nn.Linear(16, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    random.seed(42)
    torch.manual_seed(42)
    train(args, model, optimizer)


if __name__ == "__main__":
    main()
