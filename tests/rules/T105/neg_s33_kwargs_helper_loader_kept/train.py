# stagec fixture: s33 neg_kwargs_helper_loader_kept (issue 22, class 9: review 44a's SpeechTokenizer
#   shape, but the trainer hands `persistent_workers=True` through the helper's `**kwargs` too; the
#   helper called with a mapping of its own (`**loader_cfg`) is not known and left alone)
# named: on the command line (`accelerate launch --multi_gpu train.py`)
# expect: nothing
# ----
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


def collate_fn(batch):
    return torch.stack([b[0] for b in batch])


def get_dataloader(ds, **kwargs):
    return DataLoader(ds, collate_fn=collate_fn, **kwargs)


def load_loader_cfg():
    import json

    with open("loader.json") as f:
        return json.load(f)


class Trainer:
    def __init__(self, model, cfg):
        self.accelerator = Accelerator()
        self.model = model
        self.optim = torch.optim.AdamW(model.parameters(), lr=1e-4)
        self.epochs = cfg["epochs"]
        train_ds = TensorDataset(torch.randn(1024, 16))
        valid_ds = TensorDataset(torch.randn(64, 16))
        num_workers = 8
        loader_cfg = load_loader_cfg()
        self.dl = get_dataloader(train_ds, batch_size=16, shuffle=True, num_workers=num_workers, persistent_workers=True)
        self.valid_dl = get_dataloader(valid_ds, num_workers=4, **loader_cfg)
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
