# stagec fixture: s33 pos_kwargs_helper_loader (issue 22, class 9; review 44a's SpeechTokenizer: the
#   loader is built by a helper that hands its `**kwargs` to `DataLoader`, and the trainer passes
#   the worker count through it; the validation loader, one worker passed over on the main process
#   only, is left alone)
# named: on the command line (`accelerate launch --multi_gpu train.py`)
# expect:
#   T105 at 31:73 num_workers=8 through the helper's `**kwargs`, with the fix at that call
# ----
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


def collate_fn(batch):
    return torch.stack([b[0] for b in batch])


def get_dataloader(ds, **kwargs):
    return DataLoader(ds, collate_fn=collate_fn, **kwargs)


class Trainer:
    def __init__(self, model, cfg):
        self.accelerator = Accelerator()
        self.model = model
        self.optim = torch.optim.AdamW(model.parameters(), lr=1e-4)
        self.epochs = cfg["epochs"]
        train_ds = TensorDataset(torch.randn(1024, 16))
        valid_ds = TensorDataset(torch.randn(64, 16))
        num_workers = 8
        self.dl = get_dataloader(train_ds, batch_size=16, shuffle=True, num_workers=num_workers)
        self.valid_dl = get_dataloader(valid_ds, batch_size=1, shuffle=False, num_workers=1)
        self.model, self.optim, self.dl, self.valid_dl = self.accelerator.prepare(
            self.model, self.optim, self.dl, self.valid_dl
        )

    def train(self):
        for epoch in range(self.epochs):
            for batch in self.dl:
                loss = self.model(batch).pow(2).mean()
                self.accelerator.backward(loss)
                self.optim.step()
                self.optim.zero_grad()
            if self.accelerator.is_main_process:
                with torch.no_grad():
                    for batch in self.valid_dl:
                        self.model(batch)


if __name__ == "__main__":
    Trainer(torch.nn.Linear(16, 16), {"epochs": 10}).train()
