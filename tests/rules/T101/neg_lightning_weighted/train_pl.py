# stagec fixture: h01_neg_lightning_weighted
# context: const.yaml entrypoint "python3 train_pl.py", resources.slots_per_trial: 4
#          (Lightning starts one process per device itself with strategy="ddp")
# runtime: PyTorch Lightning Trainer (use_distributed_sampler left at its default, True)
# expect: no finding.
#   Lightning replaces a non-distributed sampler in a distributed run: RandomSampler and
#   SequentialSampler become DistributedSampler, any other sampler (this WeightedRandomSampler)
#   is wrapped in DistributedSamplerWrapper, which shards the sampler's output by rank; it also
#   calls set_epoch itself. seed_everything(7) gives every rank the same stream to shard.
# ----
import lightning as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler


class SkewedData(L.LightningDataModule):
    def setup(self, stage=None):
        y = torch.randint(0, 4, (16000,)) ** 2 % 4
        self.train_set = TensorDataset(torch.randn(16000, 8), y)

    def train_dataloader(self):
        y = self.train_set.tensors[1]
        w = (1.0 / torch.bincount(y, minlength=4).clamp(min=1).double())[y]
        return DataLoader(self.train_set, batch_size=64, sampler=WeightedRandomSampler(w, len(w)), num_workers=4)


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss, sync_dist=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


if __name__ == "__main__":
    L.seed_everything(7)
    trainer = L.Trainer(accelerator="gpu", devices=4, strategy="ddp", max_epochs=3)
    trainer.fit(Classifier(), datamodule=SkewedData())
