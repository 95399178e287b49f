# stagec fixture: neg_fabric_setup_dataloaders (a single-device script: Fabric's dcgan example)
# named: on the command line with train.py
# runtime: Fabric(devices=1): one process
# expect: none: one process shuffles with the global RNG; there are no other ranks to draw alike
# ----
import torch
from lightning.fabric import Fabric, seed_everything
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def gan():
    seed_everything(999)
    fabric = Fabric(accelerator="auto", devices=1)
    data = TensorDataset(torch.randn(1000, 8))
    loader = DataLoader(data, batch_size=32, shuffle=True)
    net = nn.Linear(8, 8)
    opt = torch.optim.Adam(net.parameters())
    net, opt = fabric.setup(net, opt)
    for epoch in range(5):
        for (x,) in loader:
            loss = net(x).square().mean()
            opt.zero_grad()
            fabric.backward(loss)
            opt.step()


if __name__ == "__main__":
    gan()
