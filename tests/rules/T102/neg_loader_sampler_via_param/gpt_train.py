# stagec fixture: h02_neg_loader_sampler_via_param
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 gpt_train.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed (torchrun-style env:// ranks)
# expect: no finding.
#   The sampler is reachable as `loader.sampler`: _prepare() puts DistributedSampler(dataset)
#   into the DataLoader stored in self.train_loader, train() passes self.train_loader to
#   _run_epoch() as `loader`, and _run_epoch() calls loader.sampler.set_epoch(epoch) before
#   iterating. stagec follows the loader through the attribute and the parameter binding.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class CharChunks(Dataset):
    def __init__(self, text: str, block: int = 128):
        self.ids = torch.tensor([ord(c) % 256 for c in text])
        self.block = block

    def __len__(self):
        return len(self.ids) - self.block - 1

    def __getitem__(self, i):
        return self.ids[i:i + self.block], self.ids[i + 1:i + self.block + 1]


class Runner:
    def __init__(self, model: nn.Module, train_set: Dataset, epochs: int):
        self.local_rank = int(os.environ["LOCAL_RANK"])
        self.model = nn.parallel.DistributedDataParallel(model.to(self.local_rank), device_ids=[self.local_rank])
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=6e-4)
        self.train_loader = self._prepare(train_set)
        self.epochs = epochs

    def _prepare(self, dataset: Dataset) -> DataLoader:
        return DataLoader(dataset, batch_size=32, shuffle=False, sampler=DistributedSampler(dataset), num_workers=2)

    def _run_epoch(self, epoch: int, loader: DataLoader) -> None:
        loader.sampler.set_epoch(epoch)
        for src, tgt in loader:
            logits = self.model(src.to(self.local_rank))
            loss = nn.functional.cross_entropy(logits.flatten(0, 1), tgt.to(self.local_rank).flatten())
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            self.opt.step()

    def train(self) -> None:
        for epoch in range(self.epochs):
            self._run_epoch(epoch, self.train_loader)


if __name__ == "__main__":
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    net = nn.Sequential(nn.Embedding(256, 128), nn.Linear(128, 256))
    Runner(net, CharChunks("hello world " * 20000), epochs=5).train()
    dist.destroy_process_group()
