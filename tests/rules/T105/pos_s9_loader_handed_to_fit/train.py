# stagec fixture: s9 pos_loader_handed_to_fit (issue 22, class 9; review 13a's byol-pytorch mark:
#                 the loaders handed straight to a Lightning Trainer's fit)
# named: on the command line (a Lightning script, no config)
# runtime: multi-rank: pl.Trainer(gpus=2), the older spelling of devices=
# expect:
#   T105 at 38:56 a loader of one worker per CPU given to `trainer.fit(model, train_loader)`:
#        the Trainer passes over it every epoch.
#   T105 at 39:54 the validation loader given as `val_dataloaders=`, passed over at every
#        validation run.
# ----
import multiprocessing

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, Dataset

NUM_GPUS = 2
NUM_WORKERS = multiprocessing.cpu_count()


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


if __name__ == "__main__":
    train_loader = DataLoader(Images(), batch_size=32, num_workers=NUM_WORKERS, shuffle=True)
    val_loader = DataLoader(Images(), batch_size=32, num_workers=4)
    trainer = pl.Trainer(gpus=NUM_GPUS, max_epochs=1000, sync_batchnorm=True)
    trainer.fit(Learner(), train_loader, val_dataloaders=val_loader)
