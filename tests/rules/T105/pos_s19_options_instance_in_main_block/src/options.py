import argparse


class Options:
    def __init__(self):
        self.parser = argparse.ArgumentParser()
        self.initialize()

    def initialize(self):
        self.parser.add_argument("--seed", type=int, default=0)
        self.parser.add_argument("--total_steps", type=int, default=100000)
        self.parser.add_argument("--per_gpu_batch_size", type=int, default=64)
        self.parser.add_argument("--num_workers", type=int, default=5)
        self.parser.add_argument("--local_rank", type=int, default=-1)

    def parse(self):
        opt, _ = self.parser.parse_known_args()
        return opt
