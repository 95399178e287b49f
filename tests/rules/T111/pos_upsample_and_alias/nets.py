# stagec fixture: h07_pos_upsample_and_alias
# context: any
# expect:
#   T111 at 21:13 nn.Upsample in trilinear mode without align_corners.
#   T111 at 33:12 `resize` is torch.nn.functional.interpolate
#        imported under another name, and mode=DOWN_MODE resolves through the module constant to
#        "bicubic": a linear-family mode without align_corners.
#   Both info (no explicit align_corners=True anywhere in the file set).
# ----
import torch
from torch import nn
from torch.nn.functional import interpolate as resize

DOWN_MODE = "bicubic"


class VolumeDecoder(nn.Module):
    def __init__(self, c: int = 32):
        super().__init__()
        self.up = nn.Sequential(
            nn.Upsample(scale_factor=2, mode="trilinear"),
            nn.Conv3d(c, c // 2, 3, padding=1),
            nn.ReLU(inplace=True),
        )
        self.head = nn.Conv3d(c // 2, 1, 1)

    def forward(self, z):
        return self.head(self.up(z))


def thumbnail(vol: torch.Tensor) -> torch.Tensor:
    flat = vol.mean(dim=2)
    return resize(flat, scale_factor=0.5, mode=DOWN_MODE)


class VolumeAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv3d(1, 32, 3, stride=2, padding=1), nn.ReLU())
        self.dec = VolumeDecoder()

    def forward(self, vol):
        return self.dec(self.enc(vol))


if __name__ == "__main__":
    ae = VolumeAE()
    vol = torch.randn(2, 1, 32, 64, 64)
    rec = ae(vol)
    print(rec.shape, thumbnail(rec).shape)
