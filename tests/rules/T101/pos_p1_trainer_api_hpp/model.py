# stagec fixture project p1_trainer_api_hpp: model.py (stage declarations)
# expect: no finding here (T112 is silent: the fp8 stage output goes through torch.nan_to_num).
# ----
import torch
from torch import nn

from determined.hpp import stage_decorator


@stage_decorator(stage_id=0, device="a100", dtype=torch.float16)
class PatchStem(nn.Module):
    def __init__(self, dim: int = 128):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, kernel_size=8, stride=8)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


@stage_decorator(stage_id=1, device="h100", dtype=torch.float8_e4m3fn)
class MixerBlock(nn.Module):
    def __init__(self, dim: int = 128):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class WeightedClassifier(nn.Module):
    def __init__(self, classes: int = 50):
        super().__init__()
        self.stem = PatchStem()
        self.mixer = MixerBlock()
        self.head = nn.Linear(128, classes)

    def forward(self, x):
        h = self.stem(x)
        h = torch.nan_to_num(self.mixer(h), nan=0.0, posinf=448.0, neginf=-448.0)
        return self.head(h.mean(dim=1))
