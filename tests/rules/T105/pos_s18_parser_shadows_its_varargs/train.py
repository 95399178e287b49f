# stagec fixture: s18 pos_parser_shadows_its_varargs (issue 22, class 9; review 22b's
#                 MOSS-RLHF config_rm.py: `def parse_args(*args)` binds its namespace to a
#                 local named like its own varargs, `args = parser.parse_args()`)
# named: on the command line (an accelerate script and its options module)
# runtime: multi-rank (Accelerator)
# expect:
#   T105 at 39:63 --num_workers' default 2 starts 2 workers on every rank at each pass of the
#        epoch loop in `train`.
# ----
import json

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset

from config import parse_args


class Pairs(Dataset):
    def __init__(self, path):
        with open(path) as f:
            self.rows = [json.loads(line) for line in f]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return torch.tensor(self.rows[i]["score"])


class Trainer:
    def __init__(self, opt, model, accelerator):
        self.opt = opt
        self.model = model
        self.accelerator = accelerator
        self.loader = self.build_loader()

    def build_loader(self):
        return DataLoader(Pairs(self.opt.data), batch_size=8, num_workers=self.opt.num_workers)

    def train(self):
        for epoch in range(self.opt.epochs):
            for batch in self.loader:
                self.accelerator.backward(self.model(batch.unsqueeze(-1)).mean())


def main(opt):
    accelerator = Accelerator()
    model = accelerator.prepare(torch.nn.Linear(1, 1))
    Trainer(opt, model, accelerator).train()


if __name__ == "__main__":
    main(parse_args())
