# stagec fixture: pos_s29_lightning_train_hook_not_test_hook (issue 22, class 9, and its look-alike;
#   LoFTR's data module: the test loader's options sit in a dict beside the others, and the
#   script only fits)
# named: on the command line (no config: `python train.py` starts Lightning's 8 processes itself)
# runtime: multi-rank: pl.Trainer(strategy="ddp", devices=8)
# expect:
#   T105 at 31:45 the training loader's options: iterated every epoch
#   nothing for the test loader's options: `trainer.test()` asks for a new loader and passes over
#   it once, and `fit` never calls test_dataloader()
# ----
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class Matching(pl.LightningDataModule):
    def __init__(self, train_set, test_set, num_workers=4):
        super().__init__()
        self.train_set = train_set
        self.test_set = test_set
        self.train_loader_params = {
            "batch_size": 8,
            "num_workers": num_workers,
        }
        self.test_loader_params = {
            "batch_size": 1,
            "shuffle": False,
            "num_workers": num_workers,
        }

    def train_dataloader(self):
        return DataLoader(self.train_set, **self.train_loader_params)

    def test_dataloader(self):
        return DataLoader(self.test_set, **self.test_loader_params)


def main(model, train_set, test_set):
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="ddp", max_epochs=30)
    data = Matching(train_set, test_set)
    trainer.fit(model, datamodule=data)
    trainer.test(model, datamodule=data)
