# stagec fixture: t22d neg_lightning_hook_sampler (look-alike of T102's positives)
# named: on the command line (no config)
# runtime: multi-rank: pl.Trainer(strategy="ddp", devices=4, num_nodes=2)
# expect: none: the loader train_dataloader() returns is the Trainer's to run, and Lightning's
#         fit loop calls set_epoch on its sampler at the start of every epoch
# ----
import pytorch_lightning as pl
from torch.utils.data import DataLoader, DistributedSampler


class Shards(pl.LightningDataModule):
    def __init__(self, train_set):
        super().__init__()
        self.train_set = train_set

    def train_dataloader(self):
        sampler = DistributedSampler(self.train_set, shuffle=True, seed=1234)
        return DataLoader(self.train_set, batch_size=16, sampler=sampler, num_workers=4)


def main(model, train_set):
    trainer = pl.Trainer(accelerator="gpu", devices=4, num_nodes=2, strategy="ddp", max_epochs=20)
    trainer.fit(model, datamodule=Shards(train_set))
