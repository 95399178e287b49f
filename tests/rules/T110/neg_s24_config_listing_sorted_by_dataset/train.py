# stagec fixture: s24 neg_config_listing_sorted_by_dataset (issue 22, class 4; the look-alike
#                 of pos_s24_walk_first_level_and_config_listing: the config object lists the
#                 town and route folders in directory order, but the dataset sorts the list it
#                 is handed and each level it walks, so the samples' order is the same on
#                 every rank)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from config import GlobalConfig
from data import DrivingData


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root_dir", type=str, required=True)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    config = GlobalConfig()
    config.initialize(root_dir=args.root_dir)
    train_set = DrivingData(root=config.train_data)
    sampler = DistributedSampler(train_set, shuffle=True)
    loader = DataLoader(train_set, sampler=sampler, batch_size=8, num_workers=0)
    for epoch in range(30):
        sampler.set_epoch(epoch)
        for x in loader:
            pass


if __name__ == "__main__":
    main()
