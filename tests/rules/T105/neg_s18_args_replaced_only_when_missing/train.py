# stagec fixture: s18 neg_args_replaced_only_when_missing (issue 22, class 9; the twin of
#                 pos_s18_parser_shadows_its_varargs: the options are parsed only where the
#                 caller passes none, and the one caller passes its own)
# named: on the command line (an accelerate script and its options module)
# runtime: multi-rank (Accelerator)
# expect: nothing: the worker count is the caller's file's, unknown here.
# ----
import json
import sys

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
    main(parse_args(json.load(open(sys.argv[1]))))
