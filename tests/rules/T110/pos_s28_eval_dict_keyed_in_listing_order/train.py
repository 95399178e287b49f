# stagec fixture: s28 pos_eval_dict_keyed_in_listing_order (issue 22, class 4; LLaMA-MoE's shape:
#                 one evaluation dataset per `glob` entry, kept in a dict in the listing's order
#                 and handed to a Trainer subclass as `eval_dataset`, which evaluates them one
#                 after another)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T110 at 31:17 the glob's order decides which dataset each rank evaluates at a time
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
        paths = Path("data/validation").glob("*.jsonl")
        eval_dataset = {
            path.stem: datasets.load_dataset("json", data_files=str(path), split="train")
            for path in paths
        }
    trainer = LrSchedulerTrainer(
        model=model,
        args=training_args,
        train_dataset=train_dataset,
        eval_dataset=eval_dataset if training_args.do_eval else None,
    )
    trainer.train()


if __name__ == "__main__":
    main()
