# stagec fixture: t22c neg_t22c_oom_agreed_and_getitem
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed, the model wrapped in DDP
# expect: none
#   - FrameDataset.__getitem__ catches a decoding error and returns another index (or None for
#     the collate function to drop): every rank still draws the same number of batches, so the
#     step counts stay equal.
#   - train_one_epoch(): the GPU augmentation that can run out of memory is tried on its own; the
#     handler re-raises anything but OOM, records the OOM in a flag and falls through; the ranks
#     all_reduce the flag and skip the batch together (taken on every rank or on none).
#   - fit_large(): the OOM branch logs and re-raises; the skip is only taken in a single process
#     (`"out of memory" in str(e) and dist.get_world_size() == 1`).
#   - fit_large() also hands the error to report_and_raise(), a helper that always ends in
#     `raise`: the rank fails loudly and the launcher tears the job down.
#   - Agent.train_step(): the OOM branch catches up with the other ranks itself: _catch_up() runs
#     a zero-loss forward and backward through self.backward(), so this rank still joins the
#     gradient all-reduce the others are in (a handler that runs the collective is agreement).
#   - evaluate(): an OOM batch is skipped in a loop under no_grad that runs no collective; the
#     all_reduce of the totals after the loop is reached by every rank.
# ----
import os

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class FrameDataset(Dataset):
    def __init__(self, paths):
        self.paths = sorted(paths)

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, idx):
        try:
            frame = np.load(self.paths[idx])
        except (OSError, ValueError):
            return self[(idx + 1) % len(self)]
        return torch.from_numpy(frame).float()


class CaptionDataset(FrameDataset):
    def __getitem__(self, idx):
        try:
            return torch.load(self.paths[idx])
        except Exception:
            return None


def augment(x):
    return x + 0.01 * torch.randn_like(x)


def train_one_epoch(model, loader, opt, device):
    for x in loader:
        x = x.to(device)
        ok = torch.ones(1, device=device)
        try:
            x = augment(x)
        except RuntimeError as e:
            if "out of memory" not in str(e):
                raise
            torch.cuda.empty_cache()
            ok.zero_()
        dist.all_reduce(ok, op=dist.ReduceOp.MIN)
        if ok.item() == 0:
            continue
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def report_and_raise(err):
    print(f"rank {dist.get_rank()}: {err}")
    raise err


def fit_large(model, loader, opt, device):
    for x in loader:
        try:
            loss = model(x.to(device)).pow(2).mean()
            loss.backward()
            opt.step()
        except RuntimeError as e:
            report_and_raise(e)
        try:
            loss = model(x.to(device)).pow(2).mean()
            loss.backward()
            opt.step()
        except RuntimeError as e:
            if "out of memory" in str(e):
                print("out of memory on this batch")
                raise
            raise
        try:
            loss = model(x.to(device)).pow(2).mean()
            loss.backward()
            opt.step()
        except RuntimeError as e:
            if "out of memory" in str(e) and dist.get_world_size() == 1:
                torch.cuda.empty_cache()
                continue
            raise


class Agent:
    def __init__(self, model, opt, device):
        self.model, self.opt, self.device = model, opt, device

    def backward(self, loss):
        loss.backward()

    def update_params(self):
        self.opt.step()
        self.opt.zero_grad()

    def _catch_up(self):
        self.opt.zero_grad()
        dummy = torch.zeros(8, 256, device=self.device)
        self.backward(self.model(dummy).sum() * 0.0)

    def train_step(self, x):
        try:
            loss = self.model(x.to(self.device)).pow(2).mean()
            self.backward(loss)
            self.update_params()
        except RuntimeError as e:
            if "out of memory" in str(e):
                torch.cuda.empty_cache()
                self._catch_up()
            else:
                raise e


@torch.no_grad()
def evaluate(model, loader, device):
    total = torch.zeros(2, device=device)
    for x in loader:
        try:
            err = model.module(x.to(device)).pow(2).sum()
        except RuntimeError as e:
            if "out of memory" in str(e):
                torch.cuda.empty_cache()
                continue
            raise
        total += torch.stack([err, torch.tensor(float(len(x)), device=device)])
    dist.all_reduce(total)
    return (total[0] / total[1]).item()


def main():
    dist.init_process_group("nccl")
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    model = DDP(nn.Linear(256, 256).to(device), device_ids=[device])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = FrameDataset([f"/mnt/frames/{i:06d}.npy" for i in range(10000)])
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        train_one_epoch(model, loader, opt, device)
        fit_large(model, loader, opt, device)
        evaluate(model, loader, device)
        agent = Agent(model, opt, device)
        for x in loader:
            agent.train_step(x)


if __name__ == "__main__":
    main()
