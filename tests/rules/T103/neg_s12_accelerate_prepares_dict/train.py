# stagec fixture: neg_s12_accelerate_prepares_dict (issue 22, class 6: StyleTTS2's accelerate script)
# named: on the command line (the script, its model and optimizer builders)
# runtime: Accelerate (its loader sharded; no model wrapped)
# expect: nothing. `accelerator.prepare(model, optimizer, loader)` is handed a
#   Munch of modules (each in DataParallel), a plain optimizer holder and a
#   loader: Accelerate wraps none of them in DDP, so `accelerator.backward(loss)`
#   all-reduces nothing and the skipped batch leaves no rank waiting.
# ----
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

from models import build_model
from optimizers import build_optimizer

accelerator = Accelerator()


class MyDataParallel(torch.nn.DataParallel):
    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.module, name)


def main():
    model = build_model(8)
    for key in model:
        model[key] = MyDataParallel(model[key])
    optimizer = build_optimizer({k: model[k].parameters() for k in model})
    loader = DataLoader(TensorDataset(torch.randn(100, 8)), batch_size=4, shuffle=True)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(10):
        for (x,) in loader:
            try:
                y = model.enc(x)
            except:
                continue
            loss = model.dec(y).mean()
            accelerator.backward(loss)
            optimizer.step()


if __name__ == "__main__":
    main()
