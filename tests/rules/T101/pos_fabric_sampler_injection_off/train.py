# stagec fixture: pos_fabric_sampler_injection_off (look-alike of neg_fabric_setup_dataloaders)
# named: on the command line (a Fabric script, no config)
# runtime: Fabric(devices=4) on several processes; seed_everything(42) on every rank
# expect:
#   T101 at 25:58 setup_dataloaders(…, use_distributed_sampler=False) keeps the loader's own
#        SubsetRandomSampler, which draws from the global RNG seed_everything(42) seeds alike on
#        every rank: all four ranks train on the same indices
# ----
import torch
from lightning.fabric import Fabric, seed_everything
from torch import nn
from torch.utils.data import DataLoader, SubsetRandomSampler, TensorDataset


def main():
    fabric = Fabric(devices=4)
    fabric.launch()
    seed_everything(42)
    data = TensorDataset(torch.randn(1000, 8), torch.randn(1000, 1))
    model = nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = fabric.setup(model, opt)
    train_ids = list(range(900))
    for epoch in range(5):
        loader = DataLoader(data, batch_size=32, sampler=SubsetRandomSampler(train_ids))
        loader = fabric.setup_dataloaders(loader, use_distributed_sampler=False)
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            fabric.backward(loss)
            opt.step()


if __name__ == "__main__":
    main()
