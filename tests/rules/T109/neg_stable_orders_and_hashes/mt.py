# stagec fixture: h05_neg_stable_orders_and_hashes
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 mt.py",
#          resources.slots_per_trial: 8, no PYTHONHASHSEED anywhere
# runtime: torch.distributed
# expect: no finding.
#   - sorted(set(...)) fixes the order before modules are created.
#   - a set of ints: int hashes do not depend on PYTHONHASHSEED.
#   - a set iterated with an unused loop variable (identical layers): order cannot matter.
#   - zlib.crc32 / hashlib.md5 are the same in every process; hash() of an int likewise.
#   - dict iteration follows insertion order.
#   - a set of strings used only for membership tests.
# ----
import hashlib
import os
import zlib

import torch
import torch.distributed as dist
from torch import nn

LANGS = ["de", "fr", "ja", "de", "zh"]
HIDDEN = {"de": 512, "fr": 512, "ja": 768, "zh": 768}
FROZEN = {"ja"}


class Adapters(nn.Module):
    def __init__(self):
        super().__init__()
        self.by_lang = nn.ModuleDict({lang: nn.Linear(HIDDEN[lang], 256) for lang in sorted(set(LANGS))})
        self.by_width = nn.ModuleList([nn.Linear(w, 256) for w in {512, 768, 1024}])
        self.extra = nn.ModuleList([nn.LayerNorm(256) for _ in {"a", "b", "c"}])
        self.per_dim = nn.ModuleDict({k: nn.Linear(v, v) for k, v in HIDDEN.items()})

    def trainable(self):
        return [m for lang, m in self.by_lang.items() if lang not in FROZEN]


def owner_crc(name: str, world: int) -> int:
    return zlib.crc32(name.encode()) % world


def owner_md5(name: str, world: int) -> int:
    return int(hashlib.md5(name.encode()).hexdigest(), 16) % world


def main() -> None:
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    files = sorted(os.listdir("/mnt/shards"))
    mine = [f for f in files if owner_crc(f, world) == rank or owner_md5(f, world) == rank]
    steps = [s for s in range(len(mine)) if hash(s) % world == rank]
    model = nn.parallel.DistributedDataParallel(Adapters().cuda())
    opt = torch.optim.Adam([p for m in model.module.trainable() for p in m.parameters()], lr=1e-4)
    for step in steps:
        x = torch.randn(16, 512, device="cuda")
        loss = model.module.by_lang["de"](x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
