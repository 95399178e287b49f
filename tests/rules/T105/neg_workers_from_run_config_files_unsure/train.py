# stagec fixture: neg_workers_from_run_config_files_unsure (issue 22, class 9: counts from config files that say nothing sure)
# named: on the command line (a torchrun script, no experiment config)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: none:
#   - `num_workers`: one of the project's JSON files sets 0 (runs without workers exist);
#   - `loader.workers`: the code overwrites the field (`cfg["loader"]["workers"] = …`);
#   - `eval.prefetch`: no file sets it;
#   - `data.workers` of a YAML file: the one file that has it does not parse;
#   - `eval.workers` of the file the code names in the call, which the project does not have
#     (made elsewhere: the files here, which set 4, are not it);
#   - `small.workers` of the file `--small` names by default (settings/small.json, 0 workers;
#     the other files set 4 but are not the one loaded).
# ----
import argparse
import json

import torch
import torch.distributed as dist
import yaml
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--small", default="settings/small.json")
    args = parser.parse_args()
    cfg = json.load(open(args.config))
    cfg["loader"]["workers"] = args.workers
    other = yaml.safe_load(open(args.config))
    named = json.load(open("settings/eval.json"))
    small = json.load(open(args.small))
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(4096, 16))
    sampler = DistributedSampler(data)
    loaders = [
        DataLoader(data, sampler=sampler, num_workers=cfg["num_workers"]),
        DataLoader(data, sampler=sampler, num_workers=cfg["loader"]["workers"]),
        DataLoader(data, sampler=sampler, num_workers=cfg["eval"]["prefetch"]),
        DataLoader(data, sampler=sampler, num_workers=other["data"]["workers"]),
        DataLoader(data, sampler=sampler, num_workers=named["eval"]["workers"]),
        DataLoader(data, sampler=sampler, num_workers=small["small"]["workers"]),
    ]
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for loader in loaders:
            for (x,) in loader:
                x.sum()


if __name__ == "__main__":
    main()
