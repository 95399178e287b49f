# stagec fixture: s18 neg_loaded_files_sorted_then_sliced (issue 22, class 4; the twin of
#                 pos_s18_loaded_files_sliced_by_rank: the listing is sorted, so every rank
#                 concatenates the files alike)
# named: on the command line (an accelerate script)
# runtime: multi-rank (Accelerator)
# expect: nothing
# ----
import json
import os

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, IterableDataset


class PretrainData(IterableDataset):
    def __init__(self, path, accelerator):
        self.accelerator = accelerator
        self.data = []
        for file in sorted(os.listdir(path)):
            if file.endswith("train.json"):
                file_path = os.path.join(path, file)
                tmp = self.load_data(file_path)
                self.data.extend(tmp)
        self.data = self.data[self.accelerator.process_index :: self.accelerator.num_processes]

    def load_data(self, file_path):
        with open(file_path) as f:
            return json.load(f)

    def __iter__(self):
        for sample in self.data:
            yield torch.tensor(sample)


def main():
    accelerator = Accelerator()
    model = accelerator.prepare(torch.nn.Linear(4, 1))
    loader = DataLoader(PretrainData("data", accelerator), batch_size=4)
    for batch in loader:
        accelerator.backward(model(batch).mean())


if __name__ == "__main__":
    main()
