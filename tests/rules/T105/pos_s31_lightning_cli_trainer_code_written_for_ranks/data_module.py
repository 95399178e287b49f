# stagec fixture: s31 pos_lightning_cli_trainer_code_written_for_ranks (the data module)
# named: with pretrain.py
# expect:
#   T105 at 25:13 num_workers=16 (the --num_workers default) on the training loader, which the
#        Trainer passes over at every epoch
#   T105 at 33:13 the same count on the validation loader, passed over at every validation
# ----
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class DataModule(pl.LightningDataModule):
    def __init__(self, dataset, batch_size, num_workers):
        super().__init__()
        self.dataset = dataset
        self.batch_size = batch_size
        self.num_workers = num_workers

    def train_dataloader(self):
        return DataLoader(
            self.dataset,
            batch_size=self.batch_size,
            shuffle=True,
            drop_last=True,
            num_workers=self.num_workers,
        )

    def val_dataloader(self):
        return DataLoader(
            self.dataset,
            batch_size=self.batch_size,
            shuffle=False,
            num_workers=self.num_workers,
        )
