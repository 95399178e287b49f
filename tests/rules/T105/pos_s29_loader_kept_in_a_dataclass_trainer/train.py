# stagec fixture: pos_s29_loader_kept_in_a_dataclass_trainer (issue 22, class 9; a speech
#   enhancer's trainer: a keyword-only dataclass keeps the loader as a field, and its `run()`
#   passes over `self.train_dl` in an endless loop; the worker count is a field default of the
#   hyperparameters dataclass the loader's function is annotated with)
# named: on the command line (a deepspeed-launched script, no config)
# runtime: multi-rank (deepspeed.init_distributed)
# expect:
#   T105 at 48:9 num_workers=64 starts 64 worker processes on every rank …
# ----
from dataclasses import KW_ONLY, dataclass

import deepspeed
import torch
from torch.utils.data import DataLoader


@dataclass(frozen=True)
class HParams:
    batch_size_per_gpu: int = 16
    nj: int = 64
    max_steps: int = 1_000_000


@dataclass
class TrainLoop:
    _ = KW_ONLY
    train_dl: DataLoader
    engine: object

    def run(self, max_steps):
        train_dl = self.train_dl
        step = 0
        while True:
            for batch in train_dl:
                loss = self.engine(batch).mean()
                self.engine.backward(loss)
                self.engine.step()
                step += 1
                if step >= max_steps:
                    return


def create_dataloader(ds, hp: HParams):
    return DataLoader(
        ds,
        batch_size=hp.batch_size_per_gpu,
        shuffle=True,
        num_workers=hp.nj,
        drop_last=True,
    )


def main(ds):
    deepspeed.init_distributed()
    hp = HParams()
    engine, *_ = deepspeed.initialize(model=torch.nn.Linear(4, 4))
    TrainLoop(train_dl=create_dataloader(ds, hp), engine=engine).run(hp.max_steps)


if __name__ == "__main__":
    main(list(range(100)))
