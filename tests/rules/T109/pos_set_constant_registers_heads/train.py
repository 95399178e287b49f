# stagec fixture: h05_pos_set_constant_registers_heads
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3
#          train.py", resources.slots_per_trial: 4
# runtime: torch.distributed through Determined's launcher (DDP).
# expect: no finding.
# ----
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from heads import GroupHeads


def main() -> None:
    dist.init_process_group("nccl")
    model = DDP(GroupHeads().cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(100):
        out = model(torch.randn(32, 128, device="cuda"))
        loss = sum(v.square().mean() for v in out.values())
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
