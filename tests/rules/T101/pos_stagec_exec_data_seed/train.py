# stagec fixture: pos_stagec_exec_data_seed
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed -- stagec exec --
#          python3 train.py", resources.slots_per_trial: 6, pipeline_parallel_degree: 3
#          (every rank runs train.py through `stagec exec`, which sets STAGEC_DATA_SEED)
# runtime: torch.distributed, one process per slot (Core API context, plain torch DataLoader)
# expect:
#   T101 at 50:17 WeightedRandomSampler draws from the global RNG, which torch.manual_seed(42)
#        seeds identically on every rank. The file imports os, so the fix seeds the sampler's
#        generator from int(os.environ["STAGEC_DATA_SEED"]) (the plan's base + replica), and the
#        help names STAGEC_DATA_SEED.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, WeightedRandomSampler

import determined as det


class ShardedImages(Dataset):
    def __init__(self, n: int = 4096):
        self.x = torch.randn(n, 3, 32, 32)
        self.y = torch.randint(0, 10, (n,))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def class_balanced_weights(labels: torch.Tensor) -> torch.Tensor:
    counts = torch.bincount(labels, minlength=10).clamp(min=1).double()
    return (1.0 / counts)[labels]


def main(core: det.core.Context) -> None:
    torch.manual_seed(42)
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)

    dataset = ShardedImages()
    weights = class_balanced_weights(dataset.y)
    train_loader = DataLoader(
        dataset,
        batch_size=64,
        sampler=WeightedRandomSampler(weights, len(dataset), replacement=True),
        num_workers=8,
        pin_memory=True,
        drop_last=True,
    )

    model = DDP(nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 10)).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    steps = 0
    for epoch in range(10):
        for x, y in train_loader:
            loss = loss_fn(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
            steps += 1
        if core.distributed.rank == 0:
            core.train.report_training_metrics(steps_completed=steps, metrics={"loss": loss.item()})


if __name__ == "__main__":
    dist.init_process_group("nccl")
    distributed = det.core.DistributedContext.from_torch_distributed()
    with det.core.init(distributed=distributed) as core_context:
        main(core_context)
