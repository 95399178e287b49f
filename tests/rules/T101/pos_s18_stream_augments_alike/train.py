# stagec fixture: s18 pos_stream_augments_alike (issue 22, class 3; the twin of
#                 neg_s18_iterable_reseeds_from_entropy: the stream draws its augmentation
#                 from the RNG the workers' base seed sets)
# named: on the command line (a torchrun script)
# runtime: multi-rank (init_process_group)
# expect:
#   T101 at 57:5 every rank seeds torch with 42, the loader's 4 workers draw their base seeds
#        from it, and worker k of every rank decides its flips alike.
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
