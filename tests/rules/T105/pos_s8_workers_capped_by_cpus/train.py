# stagec fixture: s8 pos_workers_capped_by_cpus (issue 22, class 9; review 12a's M19, as
#                 kohya-ss/sd-scripts caps its workers at the CPU count)
# named: on the command line (launched with `accelerate launch`, no config)
# runtime: multi-rank: an Accelerate Accelerator
# expect:
#   T105 at 31:9 num_workers=min(flag default 8, os.cpu_count()) is 1 or more on any machine,
#        and persistent_workers is a store_true flag, off by default
#   T105 at 38:9 `min(os.cpu_count(), 4)` written in place
# ----
import argparse
import os

import torch
from accelerate import Accelerator


def add_training_arguments(parser):
    parser.add_argument("--max_data_loader_n_workers", type=int, default=8)
    parser.add_argument("--persistent_data_loader_workers", action="store_true")
    parser.add_argument("--epochs", type=int, default=10)


def train(args, model, train_set, val_set, opt):
    accelerator = Accelerator()
    n_workers = min(args.max_data_loader_n_workers, os.cpu_count())
    train_loader = torch.utils.data.DataLoader(
        train_set,
        batch_size=1,
        shuffle=True,
        collate_fn=lambda b: b[0],
        num_workers=n_workers,
        persistent_workers=args.persistent_data_loader_workers,
    )
    val_loader = torch.utils.data.DataLoader(
        val_set,
        batch_size=1,
        shuffle=False,
        num_workers=min(os.cpu_count(), 4),
    )
    model, train_loader, val_loader, opt = accelerator.prepare(model, train_loader, val_loader, opt)
    for epoch in range(args.epochs):
        for batch in train_loader:
            accelerator.backward(model(batch).mean())
            opt.step()
        for batch in val_loader:
            model(batch)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    add_training_arguments(parser)
    args = parser.parse_args()
    train(args, None, None, None, None)
