# stagec fixture: t22d pos_helper_call_sites (issue 22, class 9; the shape of review mark M5)
# named: on the command line (no config: a torchrun script)
# runtime: multi-rank: the script initialises the process group
# expect:
#   T105 at 35:9 make_loader() builds every loader of the script, so its num_workers and
#        persistent_workers differ from caller to caller (the training loader keeps its workers);
#        the evaluation helper passes persistent_workers=False with --num-workers' default 10,
#        and its loader is iterated at every evaluation: reported at that call, fixed there.
#   T105 at 44:39 the test loader leaves persistent_workers to make_loader's default (False):
#        fixed by passing persistent_workers=True at that call.
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DistributedSampler


def make_loader(dataset, batch_size, num_workers, persistent_workers=False, shuffle=False):
    sampler = DistributedSampler(dataset, shuffle=shuffle)
    loader = torch.utils.data.DataLoader(
        dataset,
        sampler=sampler,
        batch_size=batch_size,
        num_workers=num_workers,
        persistent_workers=persistent_workers,
    )
    return loader


def make_eval_loader(dataset, batch_size, num_workers):
    return make_loader(
        dataset,
        batch_size,
        num_workers=num_workers,
        persistent_workers=False,
    )


def main(args, train_set, val_set, test_set, model, step):
    dist.init_process_group("nccl")
    train = make_loader(train_set, 64, args.num_workers, persistent_workers=True, shuffle=True)
    val = make_eval_loader(val_set, 256, args.num_workers)
    test = make_loader(test_set, 256, num_workers=args.num_workers)
    for epoch in range(args.epochs):
        for batch in train:
            step(model, batch)
        for batch in val:
            model(batch)
        for batch in test:
            model(batch)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--num-workers", type=int, default=10)
    main(parser.parse_args(), None, None, None, None, None)
