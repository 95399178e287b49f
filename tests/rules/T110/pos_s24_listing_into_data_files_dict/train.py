# stagec fixture: s24 pos_listing_into_data_files_dict (issue 22, class 4; review 31a's mistral:
#                 the training files of a folder are listed, filtered into a dict of splits, and
#                 handed to `load_dataset(data_files=…)`, whose rows a distributed trainer
#                 hands the ranks by position)
# named: on the command line (`deepspeed --num_gpus 8 train.py`)
# expect:
#   T110 at 20:22 the listing's order is the rows' order, which may differ between nodes.
# ----
import argparse
import os

import datasets
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def build(dataset_dir):
    if dataset_dir is not None:
        file_names = os.listdir(dataset_dir)
        dataset_files = {}
        dataset_files["train"] = [f"{dataset_dir}/{fn}" for fn in file_names if "train" in fn]
        dataset_files["validation"] = [f"{dataset_dir}/{fn}" for fn in file_names if "validation" in fn]
        return datasets.load_dataset("json", data_files=dataset_files)
    return datasets.load_dataset("wikitext", name="wikitext-103-raw-v1")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset_dir", type=str, default=None)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    train = build(args.dataset_dir)["train"]
    loader = DataLoader(train, sampler=DistributedSampler(train), batch_size=8)
    for epoch in range(3):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            pass


if __name__ == "__main__":
    main()
