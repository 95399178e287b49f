# stagec fixture: pos_s21_loader_kept_by_template_passed_over_by_subclass (issue 22, class 9:
#                 a trainer template builds its loaders in `__init__` and keeps them in `self`;
#                 its `run_epoch` calls `self.train(…)` in the epoch loop, a method the
#                 template leaves abstract and each trainer subclass defines; the subclass
#                 passes over `self.loader_trn` through a progress bar chosen by rank. Every
#                 epoch each rank forks its 16 workers again.)
# named: with trainer.py and main.py (`torchrun --nproc_per_node=8 main.py`)
# runtime: multi-rank (init_process_group in main.py, DistributedSampler here)
# expect:
#   T105 at 27:13 num_workers=16 starts 16 worker processes on every rank …
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
        for i in range(epochs):
            self.sampler_trn.set_epoch(i)
            self.train(optimizer, epoch=i)
