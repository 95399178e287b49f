# stagec fixture: neg_s35_flag_set_from_rank_constant_world_per_rank_folder
# named: on the command line with data.py and main.py (`python logistic_eval.py`)
# expect: nothing
# ----
import argparse
import os

import torch
from torch import nn

from data import make_loader


def embed_once(encoder, data, out):
    loader = make_loader(data, world_size=1, rank=0)
    embs = torch.cat([encoder(x) for x in loader])
    torch.save({"embs": embs}, os.path.join(out, "train_embs.pt"))


def evaluate(out):
    data = [torch.randn(16, 8) for _ in range(10)]
    embed_once(nn.Linear(8, 4), data, out)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="logs")
    evaluate(parser.parse_args().out)
