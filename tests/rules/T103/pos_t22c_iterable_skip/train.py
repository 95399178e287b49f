# stagec fixture: t22c pos_t22c_iterable_skip
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed, the model wrapped in DDP
# expect:
#   T103 at 32:13 ShardStream.__iter__ skips a shard it cannot read (`except OSError: continue`):
#        that rank's DataLoader yields fewer batches, its `for batch in loader:` ends early and
#        the 7 other ranks wait in the gradient all-reduce of their last steps.
#   T103 at 45:9 the same in a generator function, consumed through enumerate() by a loop that
#        all_reduces a metric every step.
# ----
import json
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, IterableDataset


class ShardStream(IterableDataset):
    def __init__(self, root):
        rank, world = dist.get_rank(), dist.get_world_size()
        names = sorted(os.listdir(root))
        self.paths = [os.path.join(root, n) for n in names][rank::world]

    def __iter__(self):
        for path in self.paths:
            try:
                shard = torch.load(path)
            except OSError:
                print(f"skipping unreadable shard {path}")
                continue
            for row in shard:
                yield row


def records(path):
    with open(path) as f:
        lines = f.readlines()
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        yield torch.tensor(rec["x"], dtype=torch.float32)


def main():
    dist.init_process_group("nccl")
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    model = DDP(nn.Linear(512, 10).to(device), device_ids=[device])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(ShardStream("/mnt/shards"), batch_size=32)
    for batch in loader:
        loss = model(batch.to(device)).logsumexp(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    total = torch.zeros(1, device=device)
    for i, x in enumerate(records(f"/mnt/eval/part-{dist.get_rank()}.jsonl")):
        total += model.module(x.to(device)).sum()
        dist.all_reduce(total)


if __name__ == "__main__":
    main()
