# stagec fixture: t107_pos_deterministic_default_image
# runtime: torch.distributed, 2 processes, PyTorch 2.0 from the image's name
# expect:
#   T107 at 16:5 use_deterministic_algorithms(True) without CUBLAS_WORKSPACE_CONFIG: the
#        first matrix multiplication raises a RuntimeError on every rank.
# ----
import torch
import torch.distributed as dist
from torch import nn


def setup() -> None:
    dist.init_process_group("nccl")
    torch.cuda.set_device(dist.get_rank() % torch.cuda.device_count())
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)


def main() -> None:
    setup()
    model = nn.Linear(16, 4).cuda()
    x = torch.randn(8, 16, device="cuda")
    loss = model(x).square().mean()
    loss.backward()


if __name__ == "__main__":
    main()
