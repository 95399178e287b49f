# stagec fixture: s28 pos_listing_in_continued_conditional (issue 22, class 4; GritLM's shape:
#                 the training files come from `os.listdir` in a conditional expression written
#                 over two lines with a backslash, each loaded and joined in that order)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T110 at 16:56 os.listdir order decides the order of the joined training rows
# ----
import os

import datasets
import torch.distributed as dist


def load_training_data(train_data, max_examples):
    dist.init_process_group("nccl")
    data_files = [os.path.join(train_data, x) for x in os.listdir(train_data)] if \
        os.path.isdir(train_data) else [train_data]
    train_ds = []
    for file in data_files:
        tmp_ds = datasets.load_dataset("json", data_files=file, split="train")
        if len(tmp_ds) > max_examples:
            tmp_ds = tmp_ds.select(range(max_examples))
        train_ds.append(tmp_ds)
    return datasets.concatenate_datasets(train_ds)


if __name__ == "__main__":
    load_training_data("data/", 100_000)
