# stagec fixture: t22d pos_subclass_defaults_configdict (issue 22, class 9; review marks M5, M14)
# named: on the command line (no config: a torchrun script)
# runtime: multi-rank: the script initialises the process group
# expect:
#   T105 at 56:9 num_workers from an ml_collections ConfigDict built in this file (16), through a
#        DataLoader subclass that hands its keyword arguments to DataLoader and whose __iter__
#        goes through super().__iter__(): iterated every epoch.
#   T105 at 63:54 num_workers=args.eval_workers, which parser.set_defaults(eval_workers=8)
#        sets (over the argument's own default 2): the evaluation loader runs every 500 steps.
#   T105 at 48:73 num_workers=self.workers = 12 from `Shards(ds, 12).loader()`, a method
#        called on the constructor expression, inside the epoch loop.
#   T105 at 84:34 the same ConfigDict's 16 through copy.deepcopy(config) (nothing stores to it).
# ----
import argparse
import copy

import ml_collections as mlc
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

config = mlc.ConfigDict(
    {
        "data_module": {
            "data_loaders": {"batch_size": 1, "num_workers": 16},
        },
    }
)


class BatchLoader(DataLoader):
    def __init__(self, *args, config, stage="train", **kwargs):
        super().__init__(*args, **kwargs)
        self.config = config
        self.stage = stage

    def __iter__(self):
        for batch in super().__iter__():
            batch["stage"] = self.stage
            yield batch


class Shards:
    def __init__(self, ds, workers):
        self.ds = ds
        self.workers = workers

    def loader(self):
        return DataLoader(self.ds, sampler=DistributedSampler(self.ds), num_workers=self.workers)


def train_loader(dataset, config):
    return BatchLoader(
        dataset,
        config=config,
        batch_size=config.data_module.data_loaders.batch_size,
        num_workers=config.data_module.data_loaders.num_workers,
        sampler=DistributedSampler(dataset),
    )


def main(args, model, dataset, eval_set, step):
    dist.init_process_group("nccl")
    evaluation = DataLoader(eval_set, batch_size=64, num_workers=args.eval_workers)
    for epoch in range(args.epochs):
        for batch in train_loader(dataset, config):
            step(model, batch)
            if step.count % 500 == 0:
                for x in evaluation:
                    model(x)
        for batch in Shards(dataset, 12).loader():
            step(model, batch)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--eval-workers", type=int, default=2)
    parser.set_defaults(eval_workers=8)
    main(parser.parse_args(), None, None, None, None)


def finetune(model, dataset, step):
    cfg = copy.deepcopy(config)
    loader = DataLoader(dataset, num_workers=cfg.data_module.data_loaders.num_workers)
    for epoch in range(3):
        for batch in loader:
            step(model, batch)
