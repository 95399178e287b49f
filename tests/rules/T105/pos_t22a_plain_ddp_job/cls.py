# stagec fixture: h04_neg_not_a_pipeline, turned positive by t22a (issue 22, class 9)
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 cls.py",
#          resources.slots_per_trial: 8, no hpp_config and no stage declarations
# runtime: torch.distributed, plain data parallelism
# expect:
#   T105 at 35:65 num_workers=10 without persistent_workers on a plain 8-slot DDP job: every rank
#        starts 10 workers (10 × local ranks per node), restarted at each of the 90 epochs (this was
#        a negative while T105 was scoped to pipeline hosts). Fix: persistent_workers=True (35:79).
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Head(nn.Module):
    def __init__(self, dim: int = 512, classes: int = 1000):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, classes)

    def forward(self, x):
        return self.fc(self.norm(x))


def main(epochs: int = 90) -> None:
    dist.init_process_group("nccl")
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    feats = TensorDataset(torch.randn(120000, 512), torch.randint(0, 1000, (120000,)))
    sampler = DistributedSampler(feats, drop_last=True)
    loader = DataLoader(feats, batch_size=256, sampler=sampler, num_workers=10, pin_memory=True)
    model = nn.parallel.DistributedDataParallel(Head().cuda(), device_ids=[local])
    opt = torch.optim.SGD(model.parameters(), lr=0.4, momentum=0.9, nesterov=True)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda(non_blocking=True)), y.cuda(non_blocking=True))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        sched.step()


if __name__ == "__main__":
    main()
