# stagec fixture project p1_trainer_api_hpp: train.py (the entrypoint's script)
# expect:
#   T101 at 37:19 the sampler has no generator= and is passed as `sampler`
#        into data.make_train_loader(), whose torch.utils.data.DataLoader (related location:
#        data.py:37:12) is returned from build_training_data_loader with
#        Determined's reproducibility checks disabled: nothing shards it, and Determined seeds every
#        rank's global RNG with the same trial seed.
#        Fix: generator=torch.Generator().manual_seed(
#                 self.context.get_trial_seed() + self.context.distributed.get_rank() // 3)
#        (3 = pipeline_parallel_degree: ranks of one pipeline replica keep the same stream).
# ----
import argparse
from typing import Any, Dict

import torch
from torch import nn
from torch.utils.data import WeightedRandomSampler

import data
import determined as det
from determined import pytorch
from model import WeightedClassifier


class HybridTrial(pytorch.PyTorchTrial):
    def __init__(self, context: pytorch.PyTorchTrialContext) -> None:
        self.context = context
        self.context.experimental.disable_dataset_reproducibility_checks()
        self.model = context.wrap_model(WeightedClassifier())
        self.opt = context.wrap_optimizer(torch.optim.AdamW(self.model.parameters(), lr=context.get_hparam("lr")))
        self.loss_fn = nn.CrossEntropyLoss()
        self.train_set = data.SyntheticImages(20000)
        self.val_set = data.SyntheticImages(2000)

    def build_training_data_loader(self):
        weights = data.inverse_frequency(self.train_set.y)
        sampler = WeightedRandomSampler(weights, len(self.train_set), replacement=True)
        return data.make_train_loader(
            self.train_set,
            sampler,
            self.context.get_hparam("train_workers"),
            self.context.get_per_slot_batch_size(),
        )

    def build_validation_data_loader(self):
        return data.make_eval_loader(self.val_set, workers=self.context.get_hparam("eval_workers"), batch_size=64)

    def train_batch(self, batch, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        loss = self.loss_fn(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch, batch_idx: int) -> Dict[str, Any]:
        x, y = batch
        return {"validation_loss": self.loss_fn(self.model(x), y).item()}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    info = det.get_cluster_info()
    with pytorch.init() as ctx:
        trainer = pytorch.Trainer(HybridTrial(ctx), ctx)
        trainer.fit(max_length=pytorch.Epoch(args.epochs), latest_checkpoint=info.latest_checkpoint)
