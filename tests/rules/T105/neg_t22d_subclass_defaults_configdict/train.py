# stagec fixture: t22d neg_subclass_defaults_configdict (look-alike of pos_t22d_subclass_defaults_configdict)
# named: on the command line (no config: a torchrun script)
# runtime: multi-rank: the script initialises the process group
# expect: none:
#   - KeepAliveLoader sets persistent_workers itself, and PrefetchLoader's __iter__ does not
#     go through DataLoader's (what it keeps is its own business);
#   - the ConfigDict's num_workers is overwritten by a function (`cfg...num_workers = n`),
#     so its literal 16 is not the value the loader sees;
#   - set_defaults gives --eval-workers 0 (no workers), and two set_defaults calls
#     disagree on --train-workers (8 and 2): unresolved;
#   - Shards(ds, args.shard_workers).loader(): the count is a flag without a default;
#   - finetune()'s options are a deep copy of BASE that loader_options() may update
#     (loader_workers=2): the copy's literal 16 is not the value the loader sees.
# ----
import argparse
import copy

import ml_collections as mlc
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

config = mlc.ConfigDict({"data_module": {"data_loaders": {"batch_size": 1, "num_workers": 16}}})


def scale_workers(cfg, n):
    cfg.data_module.data_loaders.num_workers = n
    return cfg


class KeepAliveLoader(DataLoader):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("persistent_workers", True)
        super().__init__(*args, **kwargs)


class PrefetchLoader(DataLoader):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cached = None

    def __iter__(self):
        if self.cached is None:
            self.cached = list(DataLoader.__iter__(self))
        return iter(self.cached)


class Shards:
    def __init__(self, ds, workers):
        self.ds = ds
        self.workers = workers

    def loader(self):
        return DataLoader(self.ds, sampler=DistributedSampler(self.ds), num_workers=self.workers)


def main(args, model, dataset, eval_set, step):
    dist.init_process_group("nccl")
    cfg = scale_workers(config, args.train_workers)
    a = KeepAliveLoader(dataset, batch_size=1, num_workers=16, sampler=DistributedSampler(dataset))
    b = PrefetchLoader(dataset, batch_size=1, num_workers=16, sampler=DistributedSampler(dataset))
    c = DataLoader(dataset, num_workers=config.data_module.data_loaders.num_workers, sampler=DistributedSampler(dataset))
    evaluation = DataLoader(eval_set, batch_size=64, num_workers=args.eval_workers)
    train = DataLoader(dataset, num_workers=args.train_workers, sampler=DistributedSampler(dataset))
    for epoch in range(args.epochs):
        for loader in (a, b, c, train):
            for batch in loader:
                step(model, batch)
        for x in evaluation:
            model(x)
        for batch in Shards(dataset, args.shard_workers).loader():
            step(model, batch, cfg)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--eval-workers", type=int, default=12)
    parser.add_argument("--train-workers", type=int)
    parser.add_argument("--shard-workers", type=int)
    parser.set_defaults(eval_workers=0, train_workers=8)
    if parser.parse_known_args()[0].epochs > 100:
        parser.set_defaults(train_workers=2)
    main(parser.parse_args(), None, None, None, None)


BASE = {"loader_workers": 16, "batch_size": 4}


def loader_options(fast):
    options = copy.deepcopy(BASE)
    if fast:
        options.update(loader_workers=2)
    return options


def finetune(model, dataset, fast, step):
    options = loader_options(fast)
    loader = DataLoader(dataset, num_workers=options["loader_workers"], sampler=DistributedSampler(dataset))
    for epoch in range(3):
        for batch in loader:
            step(model, batch)
