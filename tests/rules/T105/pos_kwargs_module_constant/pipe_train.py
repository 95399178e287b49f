# stagec fixture: h04_pos_kwargs_module_constant
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 pipe_train.py",
#          resources.slots_per_trial: 8, hyperparameters.hpp_config.pipeline_parallel_degree: 2
#          (stages declared below)
# runtime: torch.distributed, plain torch DataLoader re-iterated per epoch
# expect:
#   T105 at 60:68 num_workers resolves to 16 through the module
#        constant LOADER_WORKERS and the **loader_kwargs dict literal; "persistent_workers" is False
#        in the same dict. Fix: replace that False with True (59:95).
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from determined.hpp import stage_decorator

LOADER_WORKERS = 16


@stage_decorator(stage_id=0, device="h100", dtype=torch.bfloat16)
class Frontend(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(80, 512), nn.GELU())

    def forward(self, x):
        return self.net(x)


@stage_decorator(stage_id=1, device="h100", dtype=torch.bfloat16)
class Backend(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(512, 5000)

    def forward(self, x):
        return self.net(x)


class SpeechModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.front = Frontend()
        self.back = Backend()

    def forward(self, x):
        return self.back(self.front(x))


def main(epochs: int = 30) -> None:
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    frames = TensorDataset(torch.randn(100000, 80), torch.randint(0, 5000, (100000,)))
    sampler = DistributedSampler(frames)
    loader_kwargs = {"num_workers": LOADER_WORKERS, "pin_memory": True, "persistent_workers": False}
    loader = DataLoader(frames, batch_size=128, sampler=sampler, **loader_kwargs)
    model = SpeechModel().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
