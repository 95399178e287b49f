# stagec fixture: s18 pos_record_in_a_dict_from_a_dispatcher (issue 22, class 9; the open_clip
#                 shape of review 21b's CLAP data.py:827 and review 14b's open_lm: the builder is
#                 chosen by `get_dataset_fn(kind)(…)`, its loader wrapped in a `DataInfo`
#                 dataclass, kept in the dict `get_data` returns, and read back as
#                 `data["train"].dataloader` (unpacked beside the sampler) by the epoch's function)
# named: on the command line (the script, its data module and its training loop)
# runtime: multi-rank (init_process_group, DistributedSampler)
# expect: (in data.py's header) the loader's 4 workers restart at every epoch.
# ----
import argparse

import torch
import torch.distributed as dist

from data import get_data
from train import train_one_epoch


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--dataset-type", default="csv")
    p.add_argument("--epochs", type=int, default=10)
    return p.parse_args()


def main():
    args = parse()
    dist.init_process_group("nccl")
    model = torch.nn.Linear(4, 4)
    data = get_data(args, epoch=0)
    for epoch in range(args.epochs):
        train_one_epoch(model, data, epoch, args)


if __name__ == "__main__":
    main()
