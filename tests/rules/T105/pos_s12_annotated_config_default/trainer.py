# stagec fixture: pos_s12_annotated_config_default (issue 22, class 9: CogVideo's finetune trainer)
# named: on the command line (the trainer and its arguments schema)
# runtime: Accelerate (prepare: model wrapped, loader sharded)
# expect:
#   T105 at 31:13 `self.args.num_workers`: the trainer is made from a registry stagec
#        cannot follow, but its `args` parameter is annotated `TrainArgs`, whose field
#        default is 8; the loader is passed over every epoch on every rank.
# ----
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

from schema import TrainArgs


class Trainer:
    def __init__(self, args: TrainArgs):
        self.args = args
        self.accelerator = Accelerator()
        self.model = torch.nn.Linear(8, 1)
        self.optimizer = torch.optim.AdamW(self.model.parameters())
        self.data_loader = None

    def prepare_dataset(self):
        dataset = TensorDataset(torch.randn(1000, 8))
        self.data_loader = DataLoader(
            dataset,
            batch_size=self.args.batch_size,
            shuffle=True,
            pin_memory=True,
            num_workers=self.args.num_workers,
        )

    def fit(self):
        self.prepare_dataset()
        self.model, self.optimizer, self.data_loader = self.accelerator.prepare(
            self.model, self.optimizer, self.data_loader
        )
        for epoch in range(self.args.epochs):
            for (x,) in self.data_loader:
                loss = self.model(x).square().mean()
                self.accelerator.backward(loss)
                self.optimizer.step()
                self.optimizer.zero_grad()
