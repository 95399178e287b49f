# stagec fixture: t22a neg_accelerate_tuple_loaders (issue 22, class 1 trap)
# named: on the command line (no config: launched with `accelerate launch`)
# runtime: multi-rank: an Accelerate Accelerator is the only sign of ranks
# expect: none.
#   set_seed(seed) seeds every rank alike and the train loader shuffles, but the loaders are
#   returned as a tuple from make_loaders() (which a test swaps for a stub) and handed to
#   accelerator.prepare, which shards them per rank: each rank gets its own part of the order.
# ----
import os

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def make_loaders(batch_size):
    train = TensorDataset(torch.randn(4096, 16), torch.randint(0, 2, (4096,)))
    valid = TensorDataset(torch.randn(512, 16), torch.randint(0, 2, (512,)))
    train_loader = DataLoader(train, shuffle=True, batch_size=batch_size, drop_last=True)
    valid_loader = DataLoader(valid, shuffle=False, batch_size=256)
    return train_loader, valid_loader


def stub_loaders(batch_size):
    data = TensorDataset(torch.randn(64, 16), torch.randint(0, 2, (64,)))
    return DataLoader(data, batch_size=batch_size), DataLoader(data, batch_size=batch_size)


if os.environ.get("STUB_LOADERS") == "1":
    make_loaders = stub_loaders


def train(seed=42, epochs=3):
    accelerator = Accelerator()
    set_seed(seed)
    train_loader, valid_loader = make_loaders(32)
    model = nn.Linear(16, 2)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, opt, train_loader, valid_loader = accelerator.prepare(model, opt, train_loader, valid_loader)
    for _ in range(epochs):
        for x, y in train_loader:
            accelerator.backward(nn.functional.cross_entropy(model(x), y))
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    train()
