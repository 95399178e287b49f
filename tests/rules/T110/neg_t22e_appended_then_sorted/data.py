# stagec fixture: t22e neg_appended_then_sorted (issue 22, class 4 traps; mark M18's look-alikes)
# named: on the command line alone
# runtime: Accelerate: the prepared loader shards the dataset by index across processes
# expect: none.
#   The same loops, but `self.samples` is sorted after it is filled, `self.by_name` is a dict
#   keyed by the name whose keys are sorted before use, the local list is sorted before it is
#   sliced, and the last loop appends something that does not depend on the entry.
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
        self.by_name = {}
        self.order = []
        for folder in folders:
            for entry in os.listdir(folder):
                full = Path(folder) / entry
                if full.suffix == ".txt":
                    self.samples.append((entry, str(full)))
                    self.by_name[entry] = str(full)
        self.samples = sorted(self.samples)
        self.keys = sorted(self.by_name)

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        name, path = self.samples[i]
        return name, read_text(path), self.by_name[self.keys[i]]


def main(model, opt, folders, extra_dir):
    accelerator = Accelerator()
    loader = DataLoader(Prompts(folders), batch_size=8, shuffle=True)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    mine = []
    for p in Path(extra_dir).iterdir():
        mine.append(p)
    for path in sorted(mine)[accelerator.process_index :: accelerator.num_processes]:
        read_text(path)
    slots = []
    for p in Path(extra_dir).glob("*.bin"):
        slots.append(len(slots))
    for s in slots[accelerator.process_index :: accelerator.num_processes]:
        print(s)
    for batch in loader:
        pass
