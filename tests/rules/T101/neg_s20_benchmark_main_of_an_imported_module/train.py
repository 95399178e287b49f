# stagec fixture: neg_s20_benchmark_main_of_an_imported_module (the training script)
# named: on the command line, with ring_attn.py (`accelerate launch train.py`)
# context: every rank seeds alike with Accelerate's set_seed, and the training loop draws
#          nothing from the global RNG; the attention module it imports has a benchmark in its
#          own main guard that draws torch.randn in a loop with a backward pass, which runs
#          only when that module is the script (seeded nowhere there).
# expect: nothing
# ----
import torch
from accelerate import Accelerator
from accelerate.utils import set_seed

from ring_attn import ring_attention


def main(seed=42):
    accelerator = Accelerator()
    set_seed(seed)
    model = torch.nn.Linear(64, 64)
    optim = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = torch.utils.data.DataLoader(torch.arange(1024.0).view(-1, 64), batch_size=4)
    model, optim, loader = accelerator.prepare(model, optim, loader)
    for step, batch in enumerate(loader):
        out = ring_attention(batch, batch, batch)
        loss = model(out).pow(2).mean()
        accelerator.backward(loss)
        optim.step()
        optim.zero_grad()


if __name__ == "__main__":
    main()
