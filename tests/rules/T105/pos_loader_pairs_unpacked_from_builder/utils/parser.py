import argparse


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--launcher", choices=["none", "pytorch"], default="none")
    parser.add_argument("--num_workers", type=int, default=8)
    parser.add_argument("--extra", action="store_true")
    args = parser.parse_args()
    args.exp_name = "pretrain"
    return args
