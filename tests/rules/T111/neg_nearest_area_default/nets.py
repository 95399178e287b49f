# stagec fixture: h07_neg_nearest_area_default
# context: any
# expect: no finding.
#   align_corners only exists for linear, bilinear, bicubic and trilinear; nearest, area and
#   nearest-exact have no corner alignment (passing align_corners there raises ValueError).
#   nn.Upsample(scale_factor=2) defaults to mode="nearest".
# ----
import torch
import torch.nn.functional as F
from torch import nn


class ResidualUp(nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.block = nn.Sequential(
            nn.Upsample(scale_factor=2),
            nn.Conv2d(c_in, c_out, 3, stride=1, padding=1),
            nn.InstanceNorm2d(c_out),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.block(x)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(3, 64, 4, stride=2, padding=1)
        self.up = ResidualUp(64, 32)
        self.out = nn.Conv2d(32, 3, 7, padding=3)

    def forward(self, x):
        y = self.out(self.up(self.down(x)))
        skip = F.interpolate(x, size=y.shape[-2:])
        coarse = F.interpolate(x, scale_factor=0.25, mode="area")
        sharp = F.interpolate(coarse, size=y.shape[-2:], mode="nearest-exact")
        mask = F.interpolate((x > 0).float(), scale_factor=1.0, mode="nearest")
        return torch.tanh(y + 0.1 * skip + 0.05 * sharp) * mask


if __name__ == "__main__":
    g = Generator()
    print(g(torch.randn(1, 3, 64, 64)).shape)
