# stagec fixture: pos_workers_from_named_config_file (issue 22, class 9: a count from the config file the code names)
# named: on the command line (a torchrun script, no experiment config)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect:
#   T105 at 32:9 cfg["data"]["workers"]: `--config` defaults to configs/base.yaml (8 workers); the
#        other file (small.yaml, 0 workers) is not the one named: fix persistent_workers=True
#   T105 at 39:9 conf.loader.workers of OmegaConf.load("conf/eval.yaml") (3 workers), the
#        evaluation loader run after every epoch
# ----
import argparse

import torch
import torch.distributed as dist
import yaml
from omegaconf import OmegaConf
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/base.yaml")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    conf = OmegaConf.load("conf/eval.yaml")
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(4096, 16))
    sampler = DistributedSampler(data)
    loader = DataLoader(
        data,
        batch_size=cfg["data"]["batch_size"],
        num_workers=cfg["data"]["workers"],
        sampler=sampler,
    )
    held_out = DataLoader(
        data,
        batch_size=256,
        sampler=DistributedSampler(data, shuffle=False),
        num_workers=conf.loader.workers,
    )
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            x.sum()
        for (x,) in held_out:
            x.mean()


if __name__ == "__main__":
    main()
