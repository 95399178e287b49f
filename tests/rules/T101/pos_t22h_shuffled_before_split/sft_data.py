# stagec fixture: t22h pos_shuffled_before_split (issue 22, class 3; second blind review's M26)
# named: on the command line with the script that imports it (as pre-commit passes both)
# runtime: torchrun starts one process per GPU; each builds the data module itself
# expect:
#   T101 at 35:5 random.shuffle(records) before anything seeds Python's RNG: each rank
#        shuffles its own order, so the 98/2 cut differs between ranks and a rank trains
#        on what another rank holds out
# ----
import json
import random

import torch
from torch.utils.data import Dataset


class ChatTurns(Dataset):
    def __init__(self, rows, tokenizer, max_len):
        self.rows = rows
        self.tokenizer = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        ids = self.tokenizer(self.rows[i]["text"], max_length=self.max_len, truncation=True)["input_ids"]
        ids = torch.tensor(ids)
        return {"input_ids": ids, "labels": ids.clone()}


def build_data_module(tokenizer, data_args):
    with open(data_args.data_path) as f:
        records = json.load(f)
    # mix the sources before the held-out cut
    random.shuffle(records)
    cut = int(len(records) * 0.98)
    return {
        "train_dataset": ChatTurns(records[:cut], tokenizer, data_args.max_len),
        "eval_dataset": ChatTurns(records[cut:], tokenizer, data_args.max_len),
    }
