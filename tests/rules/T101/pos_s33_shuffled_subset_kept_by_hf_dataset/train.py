# stagec fixture: s33 pos_shuffled_subset_kept_by_hf_dataset (issue 22, class 1; review 44b's
#   LLaVA-NeXT: each data file's `random:N` sampling shuffles the records with Python's global RNG
#   and keeps N of them in the dataset's list; the Hugging Face Trainer hands ranks positions in
#   it, and the only `random.seed` is in a vendored library no code here calls)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T101 at 44:17 each rank keeps a different random subset, and the positions the Trainer hands
#        out overlap across ranks
# ----
import json
import random

import torch
import torch.distributed as dist
import transformers
from torch.utils.data import Dataset
from transformers import Trainer

import vendored.core  # noqa: F401


def rank0_print(*args):
    if dist.is_initialized() and dist.get_rank() == 0:
        print(*args)


class LazySupervisedDataset(Dataset):
    def __init__(self, data_path):
        super().__init__()
        self.records = []
        with open(data_path) as f:
            datasets = json.load(f)
        for dataset in datasets:
            with open(dataset["json_path"]) as f:
                cur = json.load(f)
            strategy = dataset.get("sampling_strategy", "all")
            number = None
            if ":" in strategy:
                strategy, number = strategy.split(":")
                number = int(number)
            if strategy == "first" and number is not None:
                cur = cur[:number]
            elif strategy == "random" and number is not None:
                random.shuffle(cur)
                cur = cur[:number]
            self.records.extend(cur)
        rank0_print(f"{len(self.records)} records")

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        return self._get_item(i)

    def _get_item(self, i):
        return {"input_ids": torch.tensor(self.records[i]["ids"])}


class MyTrainer(Trainer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)


def make_data_module(data_path):
    train_dataset = LazySupervisedDataset(data_path)
    return dict(train_dataset=train_dataset, eval_dataset=None)


def train():
    parser = transformers.HfArgumentParser((transformers.TrainingArguments,))
    (training_args,) = parser.parse_args_into_dataclasses()
    model = transformers.AutoModelForCausalLM.from_pretrained("gpt2")
    data_module = make_data_module("data/mixture.json")
    trainer = MyTrainer(model=model, args=training_args, **data_module)
    trainer.train()


if __name__ == "__main__":
    train()
