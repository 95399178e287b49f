# stagec fixture: neg_listing_datasets_concatenated_sorted (look-alike of
#   pos_listing_datasets_concatenated)
# named: on the command line (a transformers Trainer script, no config)
# runtime: multi-rank (`training_args.main_process_first()`: a job of several processes)
# expect: none: both listings are sorted before their files become datasets
# ----
import os
from pathlib import Path

from datasets import concatenate_datasets, load_dataset, load_from_disk
from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments


def load_one(path, cache):
    try:
        return load_from_disk(cache)
    except Exception:
        return load_dataset("text", data_files=str(path))["train"]


def pretraining_data(data_dir, cache_dir):
    all_data = None
    files = sorted(f.name for f in Path(data_dir).glob("*.txt"))
    for idx, name in enumerate(files):
        cache = os.path.join(cache_dir, name.split(".")[0])
        ds = load_one(os.path.join(data_dir, name), cache)
        if idx == 0:
            all_data = ds
        else:
            all_data = concatenate_datasets([all_data, ds])
    return all_data


def sft_data(data_dir):
    parts = []
    for name in sorted(Path(data_dir).glob("*.json")):
        part = load_dataset("json", data_files=str(name))
        parts.append(part["train"])
    return concatenate_datasets(parts)


def main():
    (args,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses()
    with args.main_process_first(desc="tokenize"):
        train = pretraining_data("data/pt", "cache")
        tuned = sft_data("data/sft")
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    Trainer(model=model, args=args, train_dataset=train).train()
    Trainer(model=model, args=args, train_dataset=tuned).train()


if __name__ == "__main__":
    main()
