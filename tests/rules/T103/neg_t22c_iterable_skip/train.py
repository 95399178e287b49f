# stagec fixture: t22c neg_t22c_iterable_skip
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed, the model wrapped in DDP
# expect: none
#   - ShardStream.__iter__ skips an unreadable shard, but the training loop runs under the DDP
#     model's join() context, which shadows the collectives of the ranks that ran out of data.
#   - EndlessStream.__iter__ skips inside `while True`: an endless stream keeps no count, and the
#     loop that consumes it stops after a fixed number of steps on every rank.
#   - records() yields a replacement (a zero row) for a bad record: every rank keeps its count.
#   - FrameStream.__iter__ skips a bad frame, but the loader batches its items (32 a batch): one item fewer
#     changes the number of batches only sometimes, so nothing is said.
#   - Dataset-free evaluation: lines() skips bad lines in a loop that runs no collective; the
#     all_reduce of the totals comes after the loop, on every rank.
# ----
import json
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, IterableDataset


class ShardStream(IterableDataset):
    def __init__(self, paths):
        self.paths = paths

    def __iter__(self):
        for path in self.paths:
            try:
                shard = torch.load(path)
            except OSError:
                continue
            for row in shard:
                yield row


class EndlessStream(ShardStream):
    def __iter__(self):
        while True:
            for path in self.paths:
                try:
                    shard = torch.load(path)
                except OSError:
                    continue
                yield from shard


def records(path):
    with open(path) as f:
        lines = f.readlines()
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            yield torch.zeros(512)
            continue
        yield torch.tensor(rec["x"], dtype=torch.float32)


class FrameStream(ShardStream):
    def __iter__(self):
        for p in self.paths:
            try:
                frame = torch.load(p)
            except OSError:
                continue
            yield frame


def lines(path):
    with open(path) as f:
        text = f.read().splitlines()
    for line in text:
        try:
            value = float(line)
        except ValueError:
            continue
        yield value


def main():
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    model = DDP(nn.Linear(512, 10).to(device), device_ids=[device])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    paths = [f"/mnt/shards/{i:05d}.pt" for i in range(1024)][rank::world]
    with model.join():
        for batch in DataLoader(ShardStream(paths), batch_size=32):
            loss = model(batch.to(device)).logsumexp(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    stream = iter(DataLoader(EndlessStream(paths), batch_size=32))
    for step in range(1000):
        loss = model(next(stream).to(device)).logsumexp(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    for x in records(f"/mnt/extra/part-{rank}.jsonl"):
        loss = model(x.to(device)).logsumexp(0)
        opt.zero_grad()
        loss.backward()
        opt.step()
    for batch in DataLoader(FrameStream(paths), batch_size=32):
        loss = model(batch.to(device)).logsumexp(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    total = torch.zeros(1, device=device)
    for v in lines(f"/mnt/eval/part-{rank}.txt"):
        total += v
    dist.all_reduce(total)


if __name__ == "__main__":
    main()
