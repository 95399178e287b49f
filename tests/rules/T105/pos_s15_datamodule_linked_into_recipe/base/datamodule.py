# stagec fixture: pos_s15_datamodule_linked_into_recipe (the data module)
# named: beside the recipe's script, as a commit that changes both passes them
# context: base/ is a package; recipe/datamodule.py is a link to this file, so the recipe's
#          `from datamodule import SpeechDataModule` runs this code under the name `datamodule`.
# expect:
#   T105 at 39:13 3 workers (the --num-workers default) per rank restarted at every epoch
# ----
import argparse

import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Utterances(Dataset):
    def __init__(self, count: int, frames: int = 400):
        self.count = count
        self.frames = frames

    def __len__(self):
        return self.count

    def __getitem__(self, i):
        return torch.randn(self.frames, 80), i % 500


class SpeechDataModule:
    def __init__(self, args):
        self.args = args

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser):
        group = parser.add_argument_group(title="data")
        group.add_argument("--num-workers", type=int, default=3)

    def train_dataloader(self, sampler: DistributedSampler) -> DataLoader:
        return DataLoader(
            sampler.dataset,
            batch_size=16,
            num_workers=self.args.num_workers,
            sampler=sampler,
            persistent_workers=False,
        )
