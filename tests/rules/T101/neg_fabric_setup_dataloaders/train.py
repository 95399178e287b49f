# stagec fixture: neg_fabric_setup_dataloaders (issue 22: loaders that shard for you; Fabric's kfold example)
# named: on the command line with gan.py (two Fabric scripts, no config)
# runtime: Fabric() launched on several devices; seed_everything(42) on every rank
# expect: none: fabric.setup_dataloaders(train, val) wraps each loader's sampler in a distributed
#   sampler, which needs every rank to draw the same SubsetRandomSampler order (the shared seed does
#   that); gan.py's single-device script (Fabric(devices=1)) runs one process
# ----
import torch
from lightning.fabric import Fabric, seed_everything
from torch import nn
from torch.utils.data import DataLoader, SubsetRandomSampler, TensorDataset


def folds(n, k):
    ids = list(range(n))
    for i in range(k):
        val = ids[i::k]
        yield [j for j in ids if j % k != i], val


def main():
    fabric = Fabric()
    fabric.launch()
    seed_everything(42)
    data = TensorDataset(torch.randn(1000, 8), torch.randn(1000, 1))
    model = nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = fabric.setup(model, opt)
    for epoch in range(5):
        for train_ids, val_ids in folds(len(data), 5):
            train_loader = DataLoader(data, batch_size=32, sampler=SubsetRandomSampler(train_ids))
            val_loader = DataLoader(data, batch_size=32, sampler=SubsetRandomSampler(val_ids))
            train_loader, val_loader = fabric.setup_dataloaders(train_loader, val_loader)
            for x, y in train_loader:
                loss = nn.functional.mse_loss(model(x), y)
                opt.zero_grad()
                fabric.backward(loss)
                opt.step()
            for x, y in val_loader:
                model(x)


if __name__ == "__main__":
    main()
