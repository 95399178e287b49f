# stagec fixture: t22c pos_t22c_deepspeed_bad_sample
# context: const.yaml entrypoint "python3 -m determined.launch.deepspeed python3 train.py",
#          resources.slots_per_trial: 4
# runtime: DeepSpeed (one process per GPU), the model in a DeepSpeed engine
# expect:
#   T103 at 43:9 `except Exception: continue` around the whole step: a bad sample that raises in
#        the forward on one rank makes it skip engine.backward(loss) (the gradient all-reduce)
#        while the other 3 ranks wait in it.
# ----
import argparse
import json

import deepspeed
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class JsonlText(Dataset):
    def __init__(self, path):
        with open(path) as f:
            self.rows = [json.loads(line) for line in f]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        return torch.tensor(self.rows[idx]["ids"][:512])


def train(args):
    model = nn.Sequential(nn.Embedding(32000, 512), nn.Linear(512, 32000))
    engine, _, loader, _ = deepspeed.initialize(
        args=args, model=model, model_parameters=model.parameters(), training_data=JsonlText(args.data)
    )
    for step, ids in enumerate(loader):
        ids = ids.to(engine.device)
        try:
            logits = engine(ids[:, :-1])
            loss = nn.functional.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten())
            engine.backward(loss)
            engine.step()
        except Exception as e:
            print(f"step {step}: skipping batch ({e})")
            continue


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/mnt/corpus/train.jsonl")
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    train(parser.parse_args())
