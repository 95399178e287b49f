# stagec fixture: neg_s20_benchmark_in_a_script_the_trainer_imports (the validation script)
# named: on the command line, with train.py (as pre-commit passes the changed files)
# context: this script's own entry, `check_validation`, runs only from its main guard and
#          seeds nothing; the training script imports `evaluate` from it and seeds in its own
#          program, where `check_validation` never runs.
# expect: nothing
# ----
import argparse

import torch


def evaluate(model, batches):
    with torch.no_grad():
        return sum(float(model(x).mean()) for x in batches) / max(len(batches), 1)


def check_validation(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint", default="model.ckpt")
    args = parser.parse_args(argv)
    torch.backends.cudnn.benchmark = True
    model = torch.nn.Conv2d(3, 8, 3)
    model.load_state_dict(torch.load(args.checkpoint))
    print(evaluate(model, [torch.randn(2, 3, 32, 32)]))


if __name__ == "__main__":
    check_validation(None)
