# stagec fixture: pos_s15_stateful_loader_in_trainer
# named: on the command line (`torchrun --nproc_per_node=8 sft_trainer.py`)
# context: torchdata's StatefulDataLoader is a DataLoader that also saves its position; a
#          trainer class builds it with 6 workers and passes over it at every epoch.
# expect:
#   T105 at 38:13 6 workers per rank restarted at every epoch (StatefulDataLoader)
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DistributedSampler, TensorDataset
from torchdata.stateful_dataloader import StatefulDataLoader


class Policy(nn.Module):
    def __init__(self, vocab: int = 32000, dim: int = 1024):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.out = nn.Linear(dim, vocab)

    def forward(self, ids):
        return self.out(self.embed(ids))


class SupervisedTrainer:
    def __init__(self, epochs: int, micro_batch: int):
        dist.init_process_group("nccl")
        self.local_rank = int(os.environ["LOCAL_RANK"])
        self.epochs = epochs
        tokens = TensorDataset(torch.randint(0, 32000, (50000, 513)))
        self.sampler = DistributedSampler(tokens, shuffle=True, drop_last=True)
        self.loader = StatefulDataLoader(
            dataset=tokens,
            batch_size=micro_batch,
            sampler=self.sampler,
            num_workers=6,
            pin_memory=True,
            drop_last=True,
        )
        self.model = nn.parallel.DistributedDataParallel(Policy().cuda(), device_ids=[self.local_rank])
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-5)

    def fit(self):
        for epoch in range(self.epochs):
            self.sampler.set_epoch(epoch)
            for (batch,) in self.loader:
                batch = batch.cuda(non_blocking=True)
                logits = self.model(batch[:, :-1])
                loss = nn.functional.cross_entropy(logits.flatten(0, 1), batch[:, 1:].flatten())
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                self.opt.step()
            torch.save(self.loader.state_dict(), f"loader-{dist.get_rank()}.pt")


if __name__ == "__main__":
    SupervisedTrainer(epochs=3, micro_batch=4).fit()
