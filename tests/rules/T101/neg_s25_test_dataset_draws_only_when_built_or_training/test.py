# stagec fixture: s25 neg_test_dataset_draws_only_when_built_or_training (issue 22, class 3;
#                 review 33b's LC-Rec: every rank seeds alike and the test loader has workers,
#                 but its dataset draws only while it is built (`_subsample`, which only
#                 `__init__` calls: the rank's own process) and in an arm for
#                 `self.mode == "train"`, which the test construction rules out)
# named: on the command line (`torchrun --nproc_per_node 8 test.py`)
# expect: nothing
# ----
import argparse
import os
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class SeqRec(Dataset):
    def __init__(self, path, mode="train", sample_num=-1):
        self.mode = mode
        self.sample_num = sample_num
        self.items = self._subsample(np.load(path).tolist())

    def _subsample(self, items):
        if self.sample_num > 0:
            picked = np.random.choice(len(items), self.sample_num, replace=False)
            items = [items[i] for i in picked]
        return items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        item = self.items[index]
        if self.mode == "train":
            prompt = random.randint(0, 9)
        else:
            prompt = 0
        return item, prompt


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--data", default="test.npy")
    args = parser.parse_args()
    set_seed(args.seed)
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    dist.init_process_group("nccl")
    torch.cuda.set_device(local_rank)
    test_data = SeqRec(args.data, mode="test", sample_num=1000)
    loader = DataLoader(test_data, batch_size=8, sampler=DistributedSampler(test_data), num_workers=2)
    for prompt_id in range(4):
        for batch in loader:
            pass


if __name__ == "__main__":
    main()
