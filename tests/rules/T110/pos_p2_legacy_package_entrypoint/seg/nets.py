# stagec fixture project p2_legacy_package_entrypoint: seg/nets.py
# expect:
#   T111 at 28:13 (info) bilinear upsampling without align_corners.
#   (no finding for the mode="nearest" call in the skip path)
# ----
import torch
import torch.nn.functional as F
from torch import nn


def conv_block(c_in: int, c_out: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, padding=1),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
        nn.Conv2d(c_out, c_out, 3, padding=1),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    )


class Up(nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = conv_block(c_in + c_out, c_out)

    def forward(self, x, skip):
        x = F.interpolate(x, scale_factor=2, mode="bilinear")
        if x.shape[-2:] != skip.shape[-2:]:
            skip = F.interpolate(skip, size=x.shape[-2:], mode="nearest")
        return self.conv(torch.cat([x, skip], dim=1))


class UNet(nn.Module):
    def __init__(self, width: int = 32, classes: int = 4):
        super().__init__()
        self.enc1 = conv_block(3, width)
        self.enc2 = conv_block(width, 2 * width)
        self.bottom = conv_block(2 * width, 4 * width)
        self.up2 = Up(4 * width, 2 * width)
        self.up1 = Up(2 * width, width)
        self.out = nn.Conv2d(width, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        b = self.bottom(F.max_pool2d(e2, 2))
        return self.out(self.up1(self.up2(b, e2), e1))
