# stagec fixture: s8 neg_workers_capped_by_cpus (issue 22, class 9; the look-alikes of
#                 pos_s8_workers_capped_by_cpus)
# named: on the command line (launched with `accelerate launch`, no config)
# runtime: multi-rank: an Accelerate Accelerator
# expect: nothing
#   - `min(flag, os.cpu_count())` with a flag whose default is 0: no workers by default;
#   - `min(8, os.cpu_count() - 1)`: 0 on a one-CPU machine, not known to start any;
#   - `min(flag, cpus)` with persistent workers on.
# ----
import argparse
import os

import torch
from accelerate import Accelerator


def train(args, model, ds, opt):
    accelerator = Accelerator()
    a = torch.utils.data.DataLoader(ds, batch_size=1, num_workers=min(args.workers, os.cpu_count()))
    b = torch.utils.data.DataLoader(ds, batch_size=1, num_workers=min(8, os.cpu_count() - 1))
    c = torch.utils.data.DataLoader(
        ds, batch_size=1, num_workers=min(args.max_workers, os.cpu_count()), persistent_workers=True
    )
    model, a, b, c, opt = accelerator.prepare(model, a, b, c, opt)
    for epoch in range(args.epochs):
        for loader in (a, b, c):
            for batch in loader:
                accelerator.backward(model(batch).mean())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--max_workers", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    train(args, None, None, None)
