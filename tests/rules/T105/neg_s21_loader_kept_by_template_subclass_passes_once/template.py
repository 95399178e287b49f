# stagec fixture: neg_s21_loader_kept_by_template_subclass_passes_once (issue 22, class 9, a
#                 look-alike: the template keeps a loader with 16 workers in `self`, and the
#                 subclass's `train()` passes over it, but the template's `run` calls
#                 `self.train(…)` once, outside any loop: one pass, whose workers start once.)
# named: with trainer.py and main.py (`torchrun --nproc_per_node=8 main.py`)
# runtime: multi-rank
# expect: nothing
# ----
import torch
from torch.utils.data import DataLoader


class TrainerTemplate:
    def __init__(self, model, dataset_trn, config):
        num_workers = 16
        self.model = model
        self.config = config
        self.sampler_trn = torch.utils.data.distributed.DistributedSampler(dataset_trn, shuffle=True)
        self.loader_trn = DataLoader(
            dataset_trn,
            sampler=self.sampler_trn,
            batch_size=config["batch_size"],
            pin_memory=True,
            num_workers=num_workers,
        )

    def train(self, optimizer, epoch=0):
        raise NotImplementedError

    def run_epoch(self, optimizer, epochs):
        self.sampler_trn.set_epoch(0)
        self.train(optimizer, epoch=0)
