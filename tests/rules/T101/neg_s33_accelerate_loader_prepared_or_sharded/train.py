# stagec fixture: s33 neg_accelerate_loader_prepared_or_sharded (issue 22, class 1: review 44a's
#   seed-vc shape, but the training loader goes through `accelerator.prepare` with the model, and
#   the second trainer's dataset takes this rank's share of the clips itself)
# named: on the command line (`accelerate launch --multi_gpu train.py`)
# expect: nothing
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


class ShardedClips(Dataset):
    def __init__(self, rank, world_size):
        self.ids = list(range(4096))[rank::world_size]

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return torch.randn(16)


class ShardTrainer:
    def __init__(self):
        self.accelerator = Accelerator()
        state = self.accelerator.state
        self.loader = torch.utils.data.DataLoader(
            ShardedClips(state.process_index, state.num_processes), batch_size=8, shuffle=True
        )
        self.model = self.accelerator.prepare(torch.nn.Linear(16, 16))
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)

    def train(self, epochs):
        for epoch in range(epochs):
            for batch in self.loader:
                loss = self.model(batch).pow(2).mean()
                self.accelerator.backward(loss)
                self.optimizer.step()


class Trainer:
    def __init__(self):
        self.accelerator = Accelerator()
        self.train_dataloader = build_loader()
        self.model = torch.nn.Linear(16, 16)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.optimizer = self.accelerator.prepare(self.optimizer)
        self.model, self.train_dataloader = self.accelerator.prepare(self.model, self.train_dataloader)

    def train(self, epochs):
        for epoch in range(epochs):
            for batch in self.train_dataloader:
                loss = self.model(batch.to(self.accelerator.device)).pow(2).mean()
                self.accelerator.backward(loss)
                self.optimizer.step()
                self.optimizer.zero_grad()


if __name__ == "__main__":
    Trainer().train(10)
    ShardTrainer().train(10)
