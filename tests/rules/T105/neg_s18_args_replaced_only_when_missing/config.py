import argparse


def parse_args(args=None):
    if args is None:
        parser = argparse.ArgumentParser(description="reward model")
        parser.add_argument("--data", default="pairs.jsonl")
        parser.add_argument("--num_workers", type=int, default=2)
        parser.add_argument("--epochs", type=int, default=3)
        args = parser.parse_args()
    return args
