# stagec fixture: pos_s36_src_layout_package_datamodule (issue 22, review 47a: PreDiff's sevir_torch_wrap.py)
# named: on the command line with scripts/sevir/train.py
# expect: T105 at 41:27
#   the package lives in `src/forecast/` and runs installed from there
#   (`package_dir={"": "src"}`), so the script's `forecast.data.sevir` is this
#   file: the data module the DDP Trainer fits, whose training loader's 8
#   workers (the script's count) restart every epoch on every rank.
# ----
import torch
from lightning import LightningDataModule
from torch.utils.data import DataLoader, Dataset, random_split


class Sequences(Dataset):
    def __init__(self, n, seq_len):
        self.n = n
        self.seq_len = seq_len

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.randn(self.seq_len, 1, 128, 128)


class SevirDataModule(LightningDataModule):
    def __init__(self, seq_len=25, batch_size=1, num_workers=1):
        super().__init__()
        self.seq_len = seq_len
        self.batch_size = batch_size
        self.num_workers = num_workers

    def setup(self, stage=None):
        full = Sequences(10000, self.seq_len)
        self.train_set, self.val_set = random_split(
            full, [0.9, 0.1], generator=torch.Generator().manual_seed(0)
        )

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True,
                          num_workers=self.num_workers)
