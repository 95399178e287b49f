# stagec fixture: h05_pos_set_constant_registers_heads
# context: imported by train.py; const.yaml runs train.py on 4 slots with
#          determined.launch.torch_distributed, no PYTHONHASHSEED in the environment.
# expect:
#   T109 at 20:22 the set constant LABEL_GROUPS (defined at module level, away from the loop)
#        decides the order in which the heads are registered: each rank's string-hash seed
#        orders it differently. Fix: iterate sorted(LABEL_GROUPS).
#   (no finding for the sorted loop in Probe: sorted() fixes the order)
# ----
import torch
from torch import nn

LABEL_GROUPS = frozenset(["animal", "vehicle", "plant", "tool"])


class GroupHeads(nn.Module):
    def __init__(self, dim: int = 128) -> None:
        super().__init__()
        self.heads = nn.ModuleDict()
        for group in LABEL_GROUPS:
            self.heads[group] = nn.Linear(dim, 8)

    def forward(self, x: torch.Tensor) -> dict:
        return {g: head(x) for g, head in self.heads.items()}


class Probe(nn.Module):
    def __init__(self, dim: int = 128) -> None:
        super().__init__()
        self.probes = nn.ModuleList()
        for group in sorted(LABEL_GROUPS):
            self.probes.append(nn.Linear(dim, 1))
