# stagec fixture: pos_s12_accelerate_prepares_module (issue 22, class 6: StyleTTS2's accelerate script)
# named: on the command line (the script, its model and optimizer builders)
# runtime: Accelerate (the model wrapped in DDP by prepare)
# expect:
#   T103 at 36:13 the model is an nn.Module: `accelerator.prepare` wraps it in DDP, and
#        the batch a rank skips leaves the others in the gradient all-reduce of
#        `accelerator.backward(loss)`.
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
    optimizer = build_optimizer({"all": model.parameters()})
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
