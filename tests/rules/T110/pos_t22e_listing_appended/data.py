# stagec fixture: t22e pos_listing_appended (issue 22, class 4; review mark M18)
# named: on the command line alone
# runtime: Accelerate: the prepared loader shards the dataset by index across processes
# expect:
#   T110 at 25:26 each entry of the unsorted listing is appended to `self.samples`, so the
#        list keeps directory order, and __getitem__ indexes it.
#   T110 at 43:14 a local list filled in listing order, then sliced by the process index.
# ----
import os
from pathlib import Path

from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset


def read_text(path):
    with open(path) as f:
        return f.read()


class Prompts(Dataset):
    def __init__(self, folders):
        self.samples = []
        for folder in folders:
            for entry in os.listdir(folder):
                full = Path(folder) / entry
                if full.suffix == ".txt":
                    self.samples.append((entry, str(full)))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        name, path = self.samples[i]
        return name, read_text(path)


def main(model, opt, folders, extra_dir):
    accelerator = Accelerator()
    loader = DataLoader(Prompts(folders), batch_size=8, shuffle=True)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    mine = []
    for p in Path(extra_dir).iterdir():
        mine.append(p)
    for path in mine[accelerator.process_index :: accelerator.num_processes]:
        read_text(path)
    for batch in loader:
        pass
