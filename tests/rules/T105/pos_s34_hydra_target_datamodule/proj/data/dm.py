# stagec fixture: s34 pos_hydra_target_datamodule (the data module)
# named: with proj/train.py
# expect: T105 at 22:13 (`num_workers: 20` of configs/data/ljspeech.yaml, whose `_target_:`
#         names this class; 4 GPUs under DDP)
# ----
from lightning import LightningDataModule
from torch.utils.data import DataLoader


class TextMelDataModule(LightningDataModule):
    def __init__(self, train_path, batch_size, num_workers, pin_memory=True):
        super().__init__()
        self.save_hyperparameters(logger=False)

    def setup(self, stage=None):
        self.trainset = [line.split("|") for line in open(self.hparams.train_path)]

    def train_dataloader(self):
        return DataLoader(
            self.trainset,
            batch_size=self.hparams.batch_size,
            num_workers=self.hparams.num_workers,
            pin_memory=self.hparams.pin_memory,
            shuffle=True,
        )
