# stagec fixture: s11 neg_helper_with_idle_runner (the loader helper)
# named: on the command line with main.py and tools/runner.py
# expect: nothing (see main.py)
# ----
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def dataset_builder(args, config):
    dataset = torch.load(config.path)
    shuffle = config.subset == "train"
    sampler = DistributedSampler(dataset, shuffle=shuffle)
    loader = DataLoader(
        dataset,
        batch_size=config.bs,
        num_workers=int(args.num_workers),
        drop_last=config.subset == "train",
        sampler=sampler,
    )
    return sampler, loader
