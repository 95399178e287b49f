# stagec fixture: t22c pos_t22c_oom_skip_batch
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed, the detector wrapped in DDP
# expect:
#   T103 at 40:9 the OOM branch of `except RuntimeError` empties the cache and `continue`s:
#        the rank that ran out of memory skips loss.backward() (DDP's gradient all-reduce) while
#        the other 7 ranks wait in it. The `raise` is on the other branch only.
#   T103 at 57:9 `except torch.cuda.OutOfMemoryError` around the whole step falls through
#        (`pass`): the backward after the forward that ran out of memory is skipped.
#   T103 at 74:9 handle_oom() re-raises only what is not an out-of-memory error; the handler
#        then `continue`s, so a rank that ran out of memory in the forward skips the DDP backward.
#   T103 at 88:9 `if training and "out of memory" in str(err).lower()`: the recovery (falling
#        through) runs on an OOM while training; the backward after the forward is skipped.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def build_loader(batch_size):
    data = TensorDataset(torch.randn(4096, 3, 64, 64), torch.randint(0, 10, (4096,)))
    sampler = DistributedSampler(data)
    return DataLoader(data, batch_size=batch_size, sampler=sampler), sampler


def train_one_epoch(model, loader, opt, device):
    model.train()
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        try:
            loss = nn.functional.cross_entropy(model(images), targets)
            opt.zero_grad()
            loss.backward()
            opt.step()
        except RuntimeError as e:
            if "out of memory" in str(e):
                print(f"rank {dist.get_rank()}: out of memory, skipping batch")
                opt.zero_grad()
                torch.cuda.empty_cache()
                continue
            raise


def finetune(model, loader, opt, device):
    for images, targets in loader:
        try:
            out = model(images.to(device))
            loss = nn.functional.cross_entropy(out, targets.to(device))
            loss.backward()
            opt.step()
            opt.zero_grad()
        except torch.cuda.OutOfMemoryError:
            torch.cuda.empty_cache()
            pass


def handle_oom(err):
    if "out of memory" not in str(err):
        raise err
    torch.cuda.empty_cache()


def finetune_heads(model, loader, opt, device):
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        try:
            loss = nn.functional.cross_entropy(model(images), targets)
            loss.backward()
        except RuntimeError as e:
            handle_oom(e)
            continue
        opt.step()
        opt.zero_grad()


def train_captions(model, loader, opt, device, training=True):
    for images, targets in loader:
        try:
            loss = nn.functional.cross_entropy(model(images.to(device)), targets.to(device))
            loss.backward()
            opt.step()
            opt.zero_grad()
        except RuntimeError as err:
            if training and "out of memory" in str(err).lower():
                torch.cuda.empty_cache()
            else:
                raise err


def main():
    dist.init_process_group("nccl")
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    model = DDP(nn.Sequential(nn.Flatten(), nn.Linear(3 * 64 * 64, 10)).to(device), device_ids=[device])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader, sampler = build_loader(32)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        train_one_epoch(model, loader, opt, device)
    finetune(model, loader, opt, device)
    finetune_heads(model, loader, opt, device)
    train_captions(model, loader, opt, device)


if __name__ == "__main__":
    main()
