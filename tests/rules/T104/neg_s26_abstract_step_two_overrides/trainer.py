# stagec fixture: s26 neg_abstract_step_two_overrides (the recipes' trainers)
# named: on the command line, with base_trainer.py (`torchrun --nproc_per_node 8 trainer.py -V`)
# expect: nothing
# ----
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from base_trainer import BaseTrainer


class Trainer(BaseTrainer):
    def __init__(self, rank, model, optimizer, epochs, loader, only_validation=False):
        super().__init__(rank, model, optimizer, epochs, only_validation)
        self.loader = loader

    def _train_epoch(self, epoch):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()


class FrozenTrainer(BaseTrainer):
    def _train_epoch(self, epoch):
        print("frozen: nothing to train in epoch", epoch)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-V", "--only_validation", action="store_true")
    args = parser.parse_args()
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    model = DDP(torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.BatchNorm1d(8), torch.nn.Linear(8, 1)))
    optimizer = torch.optim.Adam(model.parameters())
    loader = [(torch.randn(4, 8), torch.randn(4, 1))] * 100
    Trainer(rank, model, optimizer, 10, loader, only_validation=args.only_validation).train()


if __name__ == "__main__":
    main()
