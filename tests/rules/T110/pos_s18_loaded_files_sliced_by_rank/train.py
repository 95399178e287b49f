# stagec fixture: s18 pos_loaded_files_sliced_by_rank (issue 22, class 4; review 22b's
#                 MOSS-RLHF ppo/ppo_datahelper.py:284: the records of each listed file are
#                 concatenated in listing order into `self.data`, which the dataset then cuts
#                 to this rank's share by position)
# named: on the command line (an accelerate script)
# runtime: multi-rank (Accelerator)
# expect:
#   T110 at 22:21 the listing's order decides which records each rank takes.
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
        for file in os.listdir(path):
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
