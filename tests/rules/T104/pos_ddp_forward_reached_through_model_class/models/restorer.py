import torch
from torch import nn

from models.base import ModelBase


class Restorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.Conv2d(16, 3, 3, padding=1))

    def forward(self, x):
        return self.body(x)


class RestorerModel(ModelBase):
    def __init__(self, opt):
        super().__init__(opt)
        self.net = Restorer()
        self.net = self.to_device(self.net)
        self.optimizer = torch.optim.Adam(self.net.parameters())

    def feed(self, data):
        self.low = data["low"].to(self.device)
        self.high = data["high"].to(self.device)

    def net_forward(self):
        self.out = self.net(self.low)

    def optimize(self):
        self.optimizer.zero_grad()
        self.net_forward()
        loss = (self.out - self.high).abs().mean()
        loss.backward()
        self.optimizer.step()

    def test(self):
        # Gradients stay on: each forward broadcasts the buffers.
        self.net.eval()
        self.net_forward()
        self.net.train()
