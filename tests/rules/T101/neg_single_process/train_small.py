# stagec fixture: h01_neg_single_process
# context: const.yaml entrypoint "python3 train_small.py", resources.slots_per_trial: 1
# runtime: single process (no launcher, no process group, one slot)
# expect: no finding.
#   There is one rank, so "identical across ranks" cannot happen; the WeightedRandomSampler
#   without generator= and the seeded global RNG are the normal, reproducible single-GPU setup.
# ----
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

import determined as det


def load() -> TensorDataset:
    x = torch.randn(5000, 10)
    y = torch.randint(0, 3, (5000,))
    return TensorDataset(x, y)


def train(core: det.core.Context, epochs: int = 5) -> None:
    torch.manual_seed(0)
    data = load()
    labels = data.tensors[1]
    weights = (1.0 / torch.bincount(labels).double())[labels]
    loader = DataLoader(
        data,
        batch_size=50,
        sampler=WeightedRandomSampler(weights, len(weights)),
        num_workers=8,
    )
    model = nn.Linear(10, 3)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    steps = 0
    for epoch in range(epochs):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            steps += 1
        core.train.report_training_metrics(steps_completed=steps, metrics={"loss": loss.item()})


if __name__ == "__main__":
    with det.core.init() as core_context:
        train(core_context)
