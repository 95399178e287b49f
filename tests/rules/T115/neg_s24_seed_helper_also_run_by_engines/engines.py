import torch

from misc import set_seeds


def train_main(cfg, rank):
    set_seeds(cfg, rank)
    model = torch.nn.Linear(4, 1)
    model(torch.randn(2, 4)).sum().backward()


def extract_main(cfg, rank):
    set_seeds(cfg, rank)


ENGINES = {"train": train_main, "extract_features": extract_main}


def run_engine(name, cfg, rank):
    ENGINES[name](cfg, rank)
