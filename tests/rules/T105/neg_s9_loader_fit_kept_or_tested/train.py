# stagec fixture: s9 neg_loader_fit_kept_or_tested (issue 22, class 9: the look-alikes of a loader
#                 handed to a Lightning Trainer's fit)
# named: on the command line (a Lightning script, no config)
# runtime: multi-rank: pl.Trainer(devices=4, strategy="ddp") (one device: see
#          neg_t22d_lightning_single_device)
# expect: none
#   - a loader that keeps its workers (persistent_workers=True);
#   - a loader given to `trainer.test(…)`, passed over once.
# ----
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, Dataset


class Images(Dataset):
    def __len__(self):
        return 1024

    def __getitem__(self, index):
        return torch.randn(3, 32, 32)


class Learner(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        return batch.mean()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=3e-4)


def several():
    loader = DataLoader(Images(), batch_size=32, num_workers=8, shuffle=True, persistent_workers=True)
    test_loader = DataLoader(Images(), batch_size=32, num_workers=8)
    trainer = pl.Trainer(devices=4, strategy="ddp", max_epochs=10)
    model = Learner()
    trainer.fit(model, loader)
    trainer.test(model, test_loader)
