# stagec fixture: h08_neg_amax_scaled
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 2, hyperparameters.hpp_config.pipeline_parallel_degree: 2
# runtime: torch.distributed
# expect: no finding (T112).
#   The fp8 stage's input is divided by its absolute maximum (amax scaling into [-1, 1], far
#   inside float8_e4m3fn's ±448) and the stage output is multiplied back: the explicit scaling
#   the rule accepts as a guard.
# ----
import torch
import torch.distributed as dist
from torch import nn

from determined.hpp import stage_decorator


@stage_decorator(stage_id=0, device="a100", dtype=torch.bfloat16)
class Features(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 256), nn.ReLU())

    def forward(self, x):
        return self.net(x)


@stage_decorator(stage_id=1, device="h100", dtype=torch.float8_e4m3fn)
class Fp8Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(256, 10)

    def forward(self, x):
        return self.fc(x)


class ScaledPair(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = Features()
        self.mlp = Fp8Mlp()

    def forward(self, x):
        h = self.features(x)
        amax = h.abs().amax().clamp(min=1e-12)
        return self.mlp(h / amax) * amax


def main(steps: int = 200) -> None:
    dist.init_process_group("nccl")
    model = nn.parallel.DistributedDataParallel(ScaledPair().cuda())
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(steps):
        x, y = torch.randn(32, 64, device="cuda"), torch.randint(0, 10, (32,), device="cuda")
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
