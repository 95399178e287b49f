# stagec fixture: t22c neg_t22c_fp8_scaled_casts
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed, no stage declarations (plain torch.float8_* tensors)
# expect: none
#   - ScaledFp8Linear scales its input by 448 / amax before the cast and hands the inverse scales
#     to torch._scaled_mm (torchao's dynamic scaling); its weight is cast as it is (a weight is
#     no activation: it does not grow past the format's range between steps).
#   - DivFp8Linear divides by a running scale (`x.div(self.x_scale)`) before the cast.
#   - ClampedFp8 clamps to ±448 before the cast: out-of-range values saturate instead of turning
#     into NaN.
#   - GuardedFp8 casts unscaled but sanitises the product with torch.nan_to_num before returning.
#   - HelperFp8 hands fp8_matmul() an input it has divided by its scale: the helper casts what
#     every caller passes, and its only caller scales.
#   - NormedFp8 casts the output of a LayerNorm: a call the rule does not see into (it may scale).
#   - TeBlock runs Transformer Engine layers under fp8_autocast with a DelayedScaling recipe: TE
#     derives each cast's scale from the amax history and saturates, so nothing becomes NaN.
#   - bench_fp8_matmul() casts random tensors unscaled, but only to time a matmul: no loss.
# ----
import os
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
import transformer_engine.pytorch as te
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from transformer_engine.common.recipe import DelayedScaling, Format

E4M3_MAX = 448.0


class ScaledFp8Linear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_out, d_in) * d_in**-0.5)

    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1])
        x_scale = E4M3_MAX / x2.abs().amax().float().clamp(min=1e-12)
        w_scale = E4M3_MAX / self.weight.abs().amax().float().clamp(min=1e-12)
        x8 = (x2 * x_scale).to(torch.float8_e4m3fn)
        w8 = (self.weight * w_scale).to(torch.float8_e4m3fn)
        y = torch._scaled_mm(
            x8, w8.t(), scale_a=x_scale.reciprocal(), scale_b=w_scale.reciprocal(), out_dtype=torch.bfloat16
        )
        return y.view(*x.shape[:-1], -1)


class DivFp8Linear(ScaledFp8Linear):
    def __init__(self, d_in, d_out):
        super().__init__(d_in, d_out)
        self.register_buffer("x_scale", torch.ones(()))
        self.register_buffer("one", torch.ones(()))

    def forward(self, x):
        x8 = x.div(self.x_scale).to(torch.float8_e4m3fn)
        w8 = self.weight.to(torch.float8_e4m3fn)
        return torch._scaled_mm(x8, w8.t(), scale_a=self.x_scale, scale_b=self.one, out_dtype=torch.bfloat16)


class ClampedFp8(DivFp8Linear):
    def forward(self, x):
        x8 = x.clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
        return torch._scaled_mm(x8, self.weight.to(torch.float8_e4m3fn).t(), scale_a=self.one, scale_b=self.one, out_dtype=torch.bfloat16)


class GuardedFp8(DivFp8Linear):
    def forward(self, x):
        x8 = x.to(torch.float8_e4m3fn)
        y = torch._scaled_mm(x8, self.weight.to(torch.float8_e4m3fn).t(), scale_a=self.one, scale_b=self.one, out_dtype=torch.bfloat16)
        return torch.nan_to_num(y, nan=0.0, posinf=E4M3_MAX, neginf=-E4M3_MAX)


class NormedFp8(DivFp8Linear):
    def __init__(self, d_in, d_out):
        super().__init__(d_in, d_out)
        self.norm = nn.LayerNorm(d_in)

    def forward(self, x):
        h = self.norm(x)
        h8 = h.to(torch.float8_e4m3fn)
        return torch._scaled_mm(h8, self.weight.to(torch.float8_e4m3fn).t(), scale_a=self.one, scale_b=self.one, out_dtype=torch.bfloat16)


def fp8_matmul(a, b):
    a8 = a.to(torch.float8_e4m3fn)
    b8 = b.to(torch.float8_e4m3fn)
    one = torch.ones((), device=a.device)
    return torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)


class HelperFp8(DivFp8Linear):
    def forward(self, x):
        y = fp8_matmul(x / self.x_scale, self.weight)
        return y * self.x_scale


class TeBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mlp = te.LayerNormMLP(dim, 4 * dim)
        self.recipe = DelayedScaling(fp8_format=Format.HYBRID, amax_history_len=16, amax_compute_algo="max")

    def forward(self, x):
        with te.fp8_autocast(enabled=True, fp8_recipe=self.recipe):
            return x + self.mlp(x)


class Net(nn.Module):
    def __init__(self, dim=1024, classes=1000):
        super().__init__()
        self.te = TeBlock(dim)
        self.a = ScaledFp8Linear(dim, dim)
        self.b = DivFp8Linear(dim, dim)
        self.c = ClampedFp8(dim, dim)
        self.d = GuardedFp8(dim, dim)
        self.e = NormedFp8(dim, dim)
        self.f = HelperFp8(dim, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.te(x)
        x = self.f(self.e(self.d(self.c(self.b(self.a(x))))))
        return self.head(x)


def bench_fp8_matmul(n=4096, iters=50):
    a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
    one = torch.ones((), device="cuda")
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / iters


def main():
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    model = DDP(Net().cuda().to(torch.bfloat16))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    if dist.get_rank() == 0:
        print(f"fp8 matmul: {bench_fp8_matmul() * 1e3:.2f} ms")
    for _ in range(1000):
        x = torch.randn(64, 1024, device="cuda", dtype=torch.bfloat16)
        y = torch.randint(0, 1000, (64,), device="cuda")
        loss = F.cross_entropy(model(x).float(), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
