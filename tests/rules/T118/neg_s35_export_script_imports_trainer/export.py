# stagec fixture: neg_s35_export_script_imports_trainer
# named: on the command line with train.py
# expect: nothing
#   averages the trainer's last checkpoints into one file, in one process.
# ----
import argparse
import os

import torch

from train import get_model


def average(paths):
    avg = None
    for p in paths:
        state = torch.load(p, map_location="cpu")
        if avg is None:
            avg = {k: v.clone().float() for k, v in state.items()}
        else:
            for k in avg:
                avg[k] += state[k].float()
    return {k: v / len(paths) for k, v in avg.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exp-dir", default="exp")
    parser.add_argument("--last", type=int, default=5)
    args = parser.parse_args()
    steps = sorted(int(f[5:-3]) for f in os.listdir(args.exp_dir) if f.startswith("step-"))
    paths = [os.path.join(args.exp_dir, f"step-{s}.pt") for s in steps[-args.last :]]
    model = get_model(16)
    model.load_state_dict(average(paths))
    filename = os.path.join(args.exp_dir, "pretrained.pt")
    torch.save({"model": model.state_dict()}, filename)
    print("saved", filename)


if __name__ == "__main__":
    main()
