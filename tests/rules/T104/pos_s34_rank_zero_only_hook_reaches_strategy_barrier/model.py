# stagec fixture: s34 pos_rank_zero_only_hook_reaches_strategy_barrier (issue 22, class 4; review
#                 45b's centroids-reid M7: the test hooks are `@rank_zero_only`, and the epoch-end
#                 hook reuses the validation hook, which ends in the strategy's barrier)
# named: on the command line (`python model.py`: a DDP Trainer on 4 GPUs, fit then test)
# expect: T104 at 40:9 (rank 0 alone reaches the barrier through validation_epoch_end)
# ----
import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from pytorch_lightning.utilities import rank_zero_only
from torch.utils.data import DataLoader, TensorDataset


class ReidModel(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.backbone = torch.nn.Linear(128, 64)
        self.head = torch.nn.Linear(64, 751)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self.head(self.backbone(x)), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        return {"emb": self.backbone(x), "labels": y}

    def validation_epoch_end(self, outputs):
        embeddings = torch.cat([o["emb"] for o in outputs])
        labels = torch.cat([o["labels"] for o in outputs])
        self.log("val/rank1", (embeddings.argmax(1) == labels).float().mean())
        self.trainer.strategy.barrier()

    @rank_zero_only
    def test_step(self, batch, batch_idx):
        return self.validation_step(batch, batch_idx)

    @rank_zero_only
    def test_epoch_end(self, outputs):
        self.validation_epoch_end(outputs)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=3.5e-4)


def main():
    data = TensorDataset(torch.randn(512, 128), torch.randint(0, 751, (512,)))
    loader = DataLoader(data, batch_size=64)
    trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp", max_epochs=120)
    model = ReidModel()
    trainer.fit(model, train_dataloaders=loader, val_dataloaders=loader)
    trainer.test(model, dataloaders=loader)


if __name__ == "__main__":
    main()
