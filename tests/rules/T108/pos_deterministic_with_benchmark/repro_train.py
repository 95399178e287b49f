# stagec fixture: h05_pos_deterministic_with_benchmark
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 repro_train.py",
#          resources.slots_per_trial: 4, environment.image determinedai/environments:cuda-11.8-pytorch-2.0-gpu-95c7a14,
#          no environment_variables
# runtime: torch.distributed
# expect:
#   T107 at 29:5 deterministic algorithms are required, the image ships
#        PyTorch 2.0 with CUDA 11.8, and CUBLAS_WORKSPACE_CONFIG is set neither in the experiment's
#        environment nor in the code: the first cuBLAS matmul raises RuntimeError.
#        Fix (const.yaml): environment.environment_variables: - CUBLAS_WORKSPACE_CONFIG=:4096:8
#   T108 at 50:5 cudnn.benchmark = True in code that asks for
#        determinism (line 29:5): cuDNN picks convolution algorithms by timing,
#        so two runs can pick different ones and give different results.
#        Fix: `torch.backends.cudnn.benchmark = False`.
# ----
import os
import random

import numpy as np
import torch
import torch.distributed as dist
from torch import nn


def make_reproducible(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10),
        )

    def forward(self, x):
        return self.body(x)


def main(epochs: int = 5) -> None:
    dist.init_process_group("nccl")
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    make_reproducible(0)
    torch.backends.cudnn.benchmark = True

    model = nn.parallel.DistributedDataParallel(ConvNet().cuda(), device_ids=[local])
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(epochs):
        for _ in range(200):
            x = torch.randn(128, 3, 32, 32, device="cuda")
            y = torch.randint(0, 10, (128,), device="cuda")
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
