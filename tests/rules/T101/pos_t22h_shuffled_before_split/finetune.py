# stagec fixture: t22h pos_shuffled_before_split, the script (see sft_data.py)
# named: on the command line
# expect: none in this file (the shuffle is in sft_data.py)
# ----
import os
from dataclasses import dataclass

import torch.distributed as dist
import transformers

from sft_data import build_data_module


@dataclass
class DataArgs:
    data_path: str = "chats.json"
    max_len: int = 2048


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    parser = transformers.HfArgumentParser((DataArgs, transformers.TrainingArguments))
    data_args, train_args = parser.parse_args_into_dataclasses()
    tokenizer = transformers.AutoTokenizer.from_pretrained("gpt2")
    model = transformers.AutoModelForCausalLM.from_pretrained("gpt2")
    data = build_data_module(tokenizer, data_args)
    # the Trainer seeds every RNG here, after the data module is built
    trainer = transformers.Trainer(model=model, args=train_args, **data)
    trainer.train()
    if local_rank == 0:
        trainer.save_model()


if __name__ == "__main__":
    main()
