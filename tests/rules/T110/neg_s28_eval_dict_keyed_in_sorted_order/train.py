# stagec fixture: s28 neg_eval_dict_keyed_in_sorted_order (issue 22, class 4; the look-alikes of
#                 pos_s28_eval_dict_keyed_in_listing_order)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
#   - the evaluation dict is made from the sorted listing;
#   - a dict keyed in listing order that is only printed, never handed to the Trainer.
# ----
import os
from pathlib import Path

import datasets
import transformers
from transformers import HfArgumentParser, Trainer, TrainingArguments


class LrSchedulerTrainer(Trainer):
    def create_scheduler(self, num_training_steps, optimizer=None):
        return super().create_scheduler(num_training_steps, optimizer)


def main():
    parser = HfArgumentParser(TrainingArguments)
    (training_args,) = parser.parse_args_into_dataclasses()
    if int(os.environ.get("LOCAL_RANK", "0")) == 0:
        print(training_args)
    model = transformers.AutoModelForCausalLM.from_pretrained("gpt2")
    train_dataset = datasets.load_dataset("json", data_files="train.jsonl", split="train")
    eval_dataset = None
    if training_args.do_eval:
        paths = sorted(Path("data/validation").glob("*.jsonl"))
        eval_dataset = {
            path.stem: datasets.load_dataset("json", data_files=str(path), split="train")
            for path in paths
        }
    # Keyed in listing order, but only logged, never evaluated.
    sizes = {p.stem: p.stat().st_size for p in Path("data/validation").glob("*.jsonl")}
    print(sizes)
    trainer = LrSchedulerTrainer(
        model=model,
        args=training_args,
        train_dataset=train_dataset,
        eval_dataset=eval_dataset if training_args.do_eval else None,
    )
    trainer.train()


if __name__ == "__main__":
    main()
