# stagec fixture: h01_neg_accelerate_prepared
# context: const.yaml entrypoint "accelerate launch --num_processes 8 finetune.py",
#          resources.slots_per_trial: 8
# runtime: Hugging Face Accelerate (Accelerator + prepare)
# expect: no finding.
#   accelerator.prepare() replaces the loader's batch sampler with a per-process shard
#   (BatchSamplerShard) and, because WeightedRandomSampler has a `generator` attribute, installs
#   one generator whose state process 0 broadcasts at every epoch: all processes draw the same
#   stream and keep their own batches. A rank-offset generator would be overwritten anyway.
# ----
import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler


def imbalanced(n: int = 12000) -> TensorDataset:
    y = torch.cat([torch.zeros(n - n // 20, dtype=torch.long), torch.ones(n // 20, dtype=torch.long)])
    return TensorDataset(torch.randn(n, 24), y)


def main() -> None:
    accelerator = Accelerator(gradient_accumulation_steps=2)
    set_seed(1234)

    data = imbalanced()
    labels = data.tensors[1]
    freq = torch.bincount(labels).double()
    sampler = WeightedRandomSampler((1.0 / freq)[labels], num_samples=len(labels))
    loader = DataLoader(data, batch_size=32, sampler=sampler, num_workers=4)

    model = nn.Sequential(nn.Linear(24, 48), nn.GELU(), nn.Linear(48, 2))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, opt, loader = accelerator.prepare(model, opt, loader)

    for epoch in range(3):
        model.train()
        for x, y in loader:
            with accelerator.accumulate(model):
                loss = nn.functional.cross_entropy(model(x), y)
                accelerator.backward(loss)
                opt.step()
                opt.zero_grad()
        accelerator.print(f"epoch {epoch} loss {loss.item():.4f}")
    accelerator.wait_for_everyone()


if __name__ == "__main__":
    main()
