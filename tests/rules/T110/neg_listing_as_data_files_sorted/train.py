# stagec fixture: neg_listing_as_data_files_sorted (look-alike of pos_listing_as_data_files)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (a transformers Trainer under torchrun reads RANK/WORLD_SIZE; the script
#          reads LOCAL_RANK itself)
# expect: none: the listing is sorted before it becomes `data_files`, and a glob pattern string
#   (which `datasets` resolves and sorts itself) is no listing
# ----
import os

from datasets import load_dataset
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

EXTENSIONS = {"json": "json", "jsonl": "json", "csv": "csv", "parquet": "parquet"}


def load_local(dataset_dir, name):
    local_path = os.path.join(dataset_dir, name)
    data_files = []
    if os.path.isdir(local_path):
        for file_name in sorted(os.listdir(local_path)):
            data_files.append(os.path.join(local_path, file_name))
    else:
        data_files.append(local_path)
    kind = EXTENSIONS[os.path.splitext(data_files[0])[-1][1:]]
    return load_dataset(kind, data_files=data_files, split="train")


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    train = load_local("data", "alpaca")
    extra = load_dataset("json", data_files="data/extra/*.jsonl", split="train")
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    args = TrainingArguments(output_dir="out", local_rank=local_rank, num_train_epochs=3)
    Trainer(model=model, args=args, train_dataset=train).train()


if __name__ == "__main__":
    main()
