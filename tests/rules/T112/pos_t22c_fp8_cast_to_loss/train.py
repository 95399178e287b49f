# stagec fixture: t22c pos_t22c_fp8_cast_to_loss
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed, no stage declarations (plain torch.float8_* tensors)
# expect:
#   T112 at 34:14 Fp8Linear.forward casts its input to float8_e4m3fn with no scale: e4m3fn has
#        no infinity, so an activation beyond ±448 becomes NaN; the product goes back to bf16 and
#        is returned; Fp8Linear is built by TinyMLP, whose output reaches a loss (the label shows
#        the first one found: distill_step's mse_loss on the DDP-wrapped model, line 71).
#   T112 at 41:10 fp8_matmul() casts its first argument unscaled; its only caller is
#        Fp8Proj.forward, which passes its input: the product is returned, TinyMLP builds the
#        module, and its output reaches the loss.
#   T112 at 70:15 distill_step() casts the teacher's matmul to float8_e5m2 (a module-level alias)
#        and upcasts it into mse_loss in the same function: beyond ±57344 it becomes inf.
# ----
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

E5M2 = torch.float8_e5m2


class Fp8Linear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_out, d_in) * d_in**-0.5)
        self.one = torch.ones((), device="cuda")

    def forward(self, x):
        x8 = x.reshape(-1, x.shape[-1]).to(torch.float8_e4m3fn)
        w8 = self.weight.to(torch.float8_e4m3fn)
        y = torch._scaled_mm(x8, w8.t(), scale_a=self.one, scale_b=self.one, out_dtype=torch.bfloat16)
        return y.view(*x.shape[:-1], -1)


def fp8_matmul(a, b):
    a8 = a.to(torch.float8_e4m3fn)
    b8 = b.to(torch.float8_e4m3fn)
    one = torch.ones((), device=a.device)
    return torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)


class Fp8Proj(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_out, d_in) * d_in**-0.5)

    def forward(self, h):
        return fp8_matmul(h, self.weight)


class TinyMLP(nn.Module):
    def __init__(self, dim=1024, classes=1000):
        super().__init__()
        self.up = Fp8Linear(dim, 4 * dim)
        self.mid = Fp8Proj(4 * dim, 4 * dim)
        self.down = nn.Linear(4 * dim, classes)

    def forward(self, x):
        return self.down(self.mid(F.gelu(self.up(x))))


def distill_step(student, teacher_w, x, opt):
    with torch.no_grad():
        target = x @ teacher_w
    target8 = target.to(E5M2)
    loss = F.mse_loss(student(x).float(), target8.float())
    opt.zero_grad()
    loss.backward()
    opt.step()


def main():
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    model = DDP(TinyMLP().cuda().to(torch.bfloat16))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(1000):
        x = torch.randn(64, 1024, device="cuda", dtype=torch.bfloat16)
        y = torch.randint(0, 1000, (64,), device="cuda")
        loss = F.cross_entropy(model(x).float(), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    distill_step(model, torch.randn(1024, 1000, device="cuda"), torch.randn(64, 1024, device="cuda"), opt)


if __name__ == "__main__":
    main()
