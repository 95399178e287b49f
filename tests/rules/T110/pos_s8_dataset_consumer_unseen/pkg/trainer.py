# named: on the command line with the rest of the case
# ----
from accelerate import Accelerator


class Trainer:
    def __init__(self, model, opt):
        self.accelerator = Accelerator()
        self.model = model
        self.opt = opt
        self.loader = None

    def add_loader(self, loader):
        self.model, self.loader, self.opt = self.accelerator.prepare(self.model, loader, self.opt)

    def fit(self, epochs):
        for _ in range(epochs):
            for batch in self.loader:
                loss = self.model(batch).mean()
                self.accelerator.backward(loss)
                self.opt.step()
                self.opt.zero_grad()
