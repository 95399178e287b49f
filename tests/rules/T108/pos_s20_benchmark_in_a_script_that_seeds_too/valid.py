# stagec fixture: pos_s20_benchmark_in_a_script_that_seeds_too (the twin of
#                 neg_s20_benchmark_in_a_script_the_trainer_imports: the script's entry, run
#                 only from its main guard, fine-tunes and seeds through the trainer's helper
#                 before it turns benchmarking on)
# named: on the command line, with train.py
# expect:
#   T108 at 26:5 cudnn.benchmark = True in code that seeds torch for reproducibility …
# ----
import argparse

import torch

from train import manual_seed


def evaluate(model, batches):
    with torch.no_grad():
        return sum(float(model(x).mean()) for x in batches) / max(len(batches), 1)


def check_validation(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint", default="model.ckpt")
    args = parser.parse_args(argv)
    manual_seed(0)
    torch.backends.cudnn.benchmark = True
    model = torch.nn.Conv2d(3, 8, 3)
    model.load_state_dict(torch.load(args.checkpoint))
    print(evaluate(model, [torch.randn(2, 3, 32, 32)]))


if __name__ == "__main__":
    check_validation(None)
