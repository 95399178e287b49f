# stagec fixture: h07_neg_explicit_fixed_unresolved
# context: any
# expect: no finding.
#   - explicit align_corners=False (and True) in linear modes.
#   - nn.UpsamplingBilinear2d: fixed align_corners=True by definition.
#   - mode=self.mode: set from a constructor argument read from the environment: unresolvable.
#   - **resize_kw may carry align_corners: silent.
# ----
import os

import torch
import torch.nn.functional as F
from torch import nn


class MaskRefiner(nn.Module):
    def __init__(self, mode: str, **resize_kw):
        super().__init__()
        self.mode = mode
        self.resize_kw = resize_kw
        self.up2 = nn.UpsamplingBilinear2d(scale_factor=2)
        self.conv = nn.Conv2d(8, 1, 3, padding=1)

    def forward(self, masks, target_hw):
        m = F.interpolate(masks, size=target_hw, mode="bilinear", align_corners=False)
        m = self.conv(self.up2(m))
        m = F.interpolate(m, size=target_hw, mode=self.mode)
        return F.interpolate(m, size=target_hw, mode="bilinear", **self.resize_kw)


def make_grid_sample_input(x: torch.Tensor) -> torch.Tensor:
    return F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=True)


if __name__ == "__main__":
    r = MaskRefiner(os.environ.get("MASK_MODE", "bilinear"), align_corners=False)
    out = r(torch.randn(2, 8, 32, 32), (64, 64))
    print(out.shape, make_grid_sample_input(torch.randn(1, 1, 8, 8)).shape)
