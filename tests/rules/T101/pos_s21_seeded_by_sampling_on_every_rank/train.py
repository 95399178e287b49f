# stagec fixture: pos_s21_seeded_by_sampling_on_every_rank (issue 22, class 3: the sampling that
#                 seeds torch with a constant runs on every rank before training, through the
#                 sampler object's `__call__`; every rank's shuffled loader then draws the same
#                 order)
# named: beside pipeline.py, as pre-commit passes both
# expect:
#   T101 at 19:45 DataLoader(shuffle=True) draws from the global RNG …
# ----
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

from pipeline import Sampler


def main():
    accelerator = Accelerator()
    data = TensorDataset(torch.randn(1024, 16))
    loader = DataLoader(data, batch_size=8, shuffle=True, num_workers=2, persistent_workers=True)
    model = torch.nn.Linear(16, 16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model, opt = accelerator.prepare(model, opt)
    preview = Sampler(model, accelerator.device)
    preview(prompt="warm-up", width=256, height=256)
    step = 0
    for epoch in range(4):
        for (x,) in loader:
            loss = model(x.to(accelerator.device)).pow(2).mean()
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()
            step += 1


if __name__ == "__main__":
    main()
