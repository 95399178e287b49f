# stagec fixture: neg_hf_dataset_shuffle_with_seed
# named: on the command line (`torchrun --nproc_per_node=8 finetune.py --data-path alpaca.json`)
# context: no experiment config; the same LoRA script shuffles its Hugging Face dataset with
#          seed=42: every rank draws the same order.
# expect: none
# ----
import os

import fire
import torch
import transformers
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer


def train(data_path: str = "alpaca.json", base_model: str = "base", val_set_size: int = 0):
    world_size = int(os.environ.get("WORLD_SIZE", 1))
    ddp = world_size != 1
    device_map = {"": int(os.environ.get("LOCAL_RANK") or 0)} if ddp else "auto"
    model = AutoModelForCausalLM.from_pretrained(base_model, torch_dtype=torch.float16, device_map=device_map)
    tokenizer = AutoTokenizer.from_pretrained(base_model)

    def tokenize(point):
        return tokenizer(point["instruction"] + point["output"], truncation=True, max_length=256)

    if data_path.endswith(".json"):
        data = load_dataset("json", data_files=data_path)
    else:
        data = load_dataset(data_path)

    if val_set_size > 0:
        parts = data["train"].train_test_split(test_size=val_set_size, shuffle=True, seed=42)
        train_data = parts["train"].shuffle(seed=42).map(tokenize)
        val_data = parts["test"].map(tokenize)
    else:
        train_data = data["train"].shuffle(seed=42).map(tokenize)
        val_data = None

    trainer = transformers.Trainer(
        model=model,
        train_dataset=train_data,
        eval_dataset=val_data,
        args=transformers.TrainingArguments(output_dir="out", per_device_train_batch_size=4, ddp_find_unused_parameters=False if ddp else None),
        data_collator=transformers.DataCollatorForSeq2Seq(tokenizer, pad_to_multiple_of=8, return_tensors="pt"),
    )
    trainer.train()


if __name__ == "__main__":
    fire.Fire(train)
