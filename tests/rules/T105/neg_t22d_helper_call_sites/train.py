# stagec fixture: t22d neg_helper_call_sites (look-alike of pos_t22d_helper_call_sites)
# named: on the command line (no config: a torchrun script)
# runtime: multi-rank: the script initialises the process group
# expect: none: every caller of make_loader() either keeps the workers (persistent_workers=True),
#         asks for none (0), or iterates its loader once (the final export pass, outside any loop);
#         capped_loader() lowers the count itself (min(num_workers, 4)) before building the loader
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


def capped_loader(dataset, num_workers, persistent_workers=False):
    num_workers = min(num_workers, 4)
    return torch.utils.data.DataLoader(dataset, num_workers=num_workers, persistent_workers=persistent_workers)


def main(args, train_set, val_set, test_set, model, step):
    dist.init_process_group("nccl")
    train = make_loader(train_set, 64, args.num_workers, persistent_workers=True, shuffle=True)
    val = make_loader(val_set, 256, num_workers=args.num_workers, persistent_workers=True)
    test = make_loader(test_set, 256, num_workers=0)
    capped = capped_loader(test_set, args.num_workers)
    keep = capped_loader(test_set, args.num_workers, persistent_workers=True)
    for epoch in range(args.epochs):
        for batch in train:
            step(model, batch)
        for loader in [val, test, capped, keep]:
            for batch in loader:
                model(batch)
    for batch in make_loader(test_set, 256, args.num_workers):
        model(batch)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--num-workers", type=int, default=10)
    main(parser.parse_args(), None, None, None, None, None)
