# stagec fixture: neg_s21_seeded_by_sampling_on_main_process (issue 22, class 3, a look-alike: the
#                 only `torch.manual_seed` is in the image pipeline's `forward`, which the
#                 sampler object's `__call__` runs only under `accelerator.is_main_process`; the
#                 other ranks never seed, so their shuffled loaders do not share an order; each
#                 rank's loader reads its own slice of the rows, so the unprepared loader
#                 shards nonetheless)
# named: beside pipeline.py, as pre-commit passes both
# expect: nothing
# ----
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

from pipeline import Sampler


def main():
    accelerator = Accelerator()
    rows = torch.randn(1024, 16)
    data = TensorDataset(rows[accelerator.process_index :: accelerator.num_processes])
    loader = DataLoader(data, batch_size=8, shuffle=True, num_workers=2, persistent_workers=True)
    model = torch.nn.Linear(16, 16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model, opt = accelerator.prepare(model, opt)
    step = 0
    for epoch in range(4):
        for (x,) in loader:
            loss = model(x.to(accelerator.device)).pow(2).mean()
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()
            step += 1
            if step % 100 == 0:
                if accelerator.is_main_process:
                    sampler = Sampler(model, accelerator.device)
                    image = sampler(prompt="a cat", width=256, height=256)
                    print(image.shape)


if __name__ == "__main__":
    main()
