# stagec fixture: neg_s29_loader_kept_in_a_dataclass_passed_once (look-alike of
#   pos_s29_loader_kept_in_a_dataclass_trainer)
# named: on the command line (a deepspeed-launched script, no config)
# runtime: multi-rank (deepspeed.init_distributed)
# expect: nothing:
#   - `Evaluation` keeps its loader as a field and passes over it once, in `run()`;
#   - `TrainLoop`'s loader is also read outside its methods (`loop.train_dl` handed to a
#     helper stagec does not see), so where it goes is not known: silent
# ----
from dataclasses import dataclass

import deepspeed
import torch
from torch.utils.data import DataLoader

from reporting import describe


@dataclass
class Evaluation:
    loader: DataLoader
    engine: object

    def run(self):
        total = 0.0
        for batch in self.loader:
            total += self.engine(batch).mean().item()
        return total


@dataclass
class TrainLoop:
    train_dl: DataLoader
    engine: object

    def step(self, batch):
        loss = self.engine(batch).mean()
        self.engine.backward(loss)
        self.engine.step()


def main(ds):
    deepspeed.init_distributed()
    engine, *_ = deepspeed.initialize(model=torch.nn.Linear(4, 4))
    Evaluation(DataLoader(ds, batch_size=4, num_workers=8), engine).run()
    loop = TrainLoop(DataLoader(ds, batch_size=4, shuffle=True, num_workers=8), engine)
    describe(loop.train_dl, loop.step)


if __name__ == "__main__":
    main(list(range(100)))
