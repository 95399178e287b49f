# stagec fixture: h02_neg_determined_samplers
# context: const.yaml entrypoint "model_def:DetectionTrial", resources.slots_per_trial: 8
# runtime: Determined PyTorchTrial returning a plain torch DataLoader built from Determined's
#          sampler building blocks
# expect: no finding.
#   `samplers.DistributedSampler` here is determined.pytorch.samplers.DistributedSampler, a
#   different class from torch.utils.data.DistributedSampler: it keeps every num_workers-th item
#   of an underlying sampler and has no epoch (no set_epoch method). The underlying
#   InfiniteShuffle sampler uses one explicit seeded generator on purpose (shared by all ranks,
#   then sliced), so T101 is silent too.
# ----
import itertools
from typing import Any, Dict

import torch
from torch import nn
from torch.utils.data import DataLoader, Sampler, TensorDataset

from determined.pytorch import PyTorchTrial, PyTorchTrialContext, samplers


class InfiniteShuffle(Sampler):
    def __init__(self, size: int, seed: int):
        self.size, self.seed = size, seed

    def __iter__(self):
        g = torch.Generator()
        g.manual_seed(self.seed)
        while True:
            yield from torch.randperm(self.size, generator=g).tolist()

    def __len__(self):
        return self.size


class DetectionTrial(PyTorchTrial):
    def __init__(self, context: PyTorchTrialContext) -> None:
        self.context = context
        context.experimental.disable_dataset_reproducibility_checks()
        self.data = TensorDataset(torch.randn(9000, 3, 32, 32), torch.randint(0, 80, (9000,)))
        self.model = context.wrap_model(nn.Sequential(nn.Flatten(), nn.Linear(3072, 80)))
        self.opt = context.wrap_optimizer(torch.optim.SGD(self.model.parameters(), lr=0.02))

    def build_training_data_loader(self) -> DataLoader:
        world = self.context.distributed.get_size()
        rank = self.context.distributed.get_rank()
        base = InfiniteShuffle(len(self.data), seed=self.context.get_trial_seed())
        sampler = samplers.DistributedSampler(base, num_workers=world, rank=rank)
        skip = self.context.get_initial_batch() * self.context.get_per_slot_batch_size()
        sampler = samplers.SkipSampler(sampler, skip=skip)
        return DataLoader(self.data, sampler=sampler, batch_size=self.context.get_per_slot_batch_size())

    def build_validation_data_loader(self) -> DataLoader:
        return DataLoader(TensorDataset(*[t[:512] for t in self.data.tensors]), batch_size=64)

    def train_batch(self, batch, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        loss = nn.functional.cross_entropy(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        return {"acc": (self.model(x).argmax(1) == y).float().mean().item()}
