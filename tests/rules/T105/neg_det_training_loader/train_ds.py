# stagec fixture: h04_neg_det_training_loader
# context: const.yaml entrypoint "python3 -m determined.launch.deepspeed python3 train_ds.py",
#          resources.slots_per_trial: 8, hyperparameters: {workers: 8, ds_config: {…},
#          hpp_config: {pipeline_parallel_degree: 2}}
# runtime: Determined DeepSpeedTrial through det.pytorch.deepspeed.Trainer
# expect: no finding.
#   build_training_data_loader returns a determined.pytorch.DataLoader with
#   num_workers=context.get_hparam("workers") = 8 and no persistent_workers. Determined turns the
#   training loader into one endless iterator (RepeatBatchSampler) that is created once, so the
#   8 workers start once per process; persistent_workers=True would change nothing. The
#   validation loader starts no workers (num_workers=0).
# ----
from typing import Any, Dict

import deepspeed
import torch
from torch import nn

from determined import pytorch
from determined.pytorch import deepspeed as det_ds


class ToyLM(nn.Module):
    def __init__(self, vocab: int = 8000, dim: int = 512):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.out = nn.Linear(dim, vocab)

    def forward(self, x):
        return self.out(self.emb(x))


class LMTrial(det_ds.DeepSpeedTrial):
    def __init__(self, context: det_ds.DeepSpeedTrialContext) -> None:
        self.context = context
        model = ToyLM()
        engine, _, _, _ = deepspeed.initialize(
            model=model, model_parameters=model.parameters(), config=context.get_hparam("ds_config")
        )
        self.engine = context.wrap_model_engine(engine)
        self.tokens = torch.randint(0, 8000, (40000, 129))

    def build_training_data_loader(self) -> pytorch.DataLoader:
        ds = torch.utils.data.TensorDataset(self.tokens)
        return pytorch.DataLoader(
            ds,
            batch_size=self.context.train_micro_batch_size_per_gpu,
            shuffle=True,
            num_workers=self.context.get_hparam("workers"),
        )

    def build_validation_data_loader(self) -> pytorch.DataLoader:
        ds = torch.utils.data.TensorDataset(self.tokens[:1000])
        return pytorch.DataLoader(ds, batch_size=self.context.train_micro_batch_size_per_gpu, num_workers=0)

    def train_batch(self, iter_dataloader, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        (seq,) = self.context.to_device(next(iter_dataloader))
        logits = self.engine(seq[:, :-1])
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), seq[:, 1:].flatten())
        self.engine.backward(loss)
        self.engine.step()
        return {"loss": loss}

    def evaluate_batch(self, iter_dataloader, batch_idx: int) -> Dict[str, Any]:
        (seq,) = self.context.to_device(next(iter_dataloader))
        logits = self.engine(seq[:, :-1])
        return {"val_loss": nn.functional.cross_entropy(logits.flatten(0, 1), seq[:, 1:].flatten()).item()}


if __name__ == "__main__":
    with det_ds.init() as ctx:
        det_ds.Trainer(LMTrial(ctx), ctx).fit()
