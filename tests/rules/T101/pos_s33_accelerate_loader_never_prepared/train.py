# stagec fixture: s33 pos_accelerate_loader_never_prepared (issue 22, class 1; review 44a's seed-vc:
#   the trainer prepares the model, optimizer and scheduler with Accelerate but builds its
#   training loader in a helper and never prepares it; nothing seeds the ranks)
# named: on the command line (`accelerate launch --multi_gpu train.py`)
# expect:
#   T101 at 22:12 every rank iterates the whole dataset in its own order
# ----
import torch
from accelerate import Accelerator
from torch.utils.data import Dataset


class Clips(Dataset):
    def __len__(self):
        return 4096

    def __getitem__(self, i):
        return torch.randn(16)


def build_loader(batch_size=8, num_workers=0):
    return torch.utils.data.DataLoader(
        Clips(),
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
    )


class Trainer:
    def __init__(self):
        self.accelerator = Accelerator()
        self.train_dataloader = build_loader()
        self.model = torch.nn.Linear(16, 16)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.optimizer = self.accelerator.prepare(self.optimizer)
        self.model = self.accelerator.prepare(self.model)

    def train(self, epochs):
        for epoch in range(epochs):
            for batch in self.train_dataloader:
                loss = self.model(batch.to(self.accelerator.device)).pow(2).mean()
                self.accelerator.backward(loss)
                self.optimizer.step()
                self.optimizer.zero_grad()


if __name__ == "__main__":
    Trainer().train(10)
