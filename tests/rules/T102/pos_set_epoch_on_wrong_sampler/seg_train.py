# stagec fixture: h02_pos_set_epoch_on_wrong_sampler
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 seg_train.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed directly (init_process_group, env:// ranks)
# expect:
#   T102 at 29:51 the training loader's DistributedSampler is
#        created inline in the DataLoader call and stored only as self.train_loader.sampler;
#        fit() advances the epoch of the *validation* sampler (self.val_sampler) but never of
#        self.train_loader.sampler.
#        Fix: insert `self.train_loader.sampler.set_epoch(epoch)` at the top of the epoch loop.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class SegTrainer:
    def __init__(self, epochs: int = 20):
        self.epochs = epochs
        self.rank = int(os.environ["RANK"])
        self.device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
        self.train_set = TensorDataset(torch.randn(4000, 3, 64, 64), torch.randint(0, 2, (4000, 64, 64)))
        self.val_set = TensorDataset(torch.randn(400, 3, 64, 64), torch.randint(0, 2, (400, 64, 64)))
        self.train_loader = DataLoader(
            self.train_set, batch_size=8, sampler=DistributedSampler(self.train_set), num_workers=4
        )
        self.val_sampler = DistributedSampler(self.val_set, shuffle=True)
        self.val_loader = DataLoader(self.val_set, batch_size=8, sampler=self.val_sampler)
        net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 2, 1))
        self.model = nn.parallel.DistributedDataParallel(net.to(self.device))
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.9)

    def train_one(self):
        for x, y in self.train_loader:
            loss = nn.functional.cross_entropy(self.model(x.to(self.device)), y.to(self.device))
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

    @torch.no_grad()
    def evaluate(self):
        return sum(self.model(x.to(self.device)).mean().item() for x, _ in self.val_loader)

    def fit(self):
        for epoch in range(self.epochs):
            self.val_sampler.set_epoch(epoch)
            self.train_one()
            score = self.evaluate()
            if self.rank == 0:
                print(f"epoch {epoch}: {score:.3f}")


if __name__ == "__main__":
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    SegTrainer().fit()
    dist.destroy_process_group()
