# stagec fixture: s11 pos_seed_helper_of_another_script (issue 22, class 3; Open-Sora-Plan's
#                 train_causalvae.py as it is: it seeds alike on every rank, while the package's
#                 config object, which it imports, has a seeding method that adds the rank and
#                 that only another script calls)
# named: on the command line with train_t2v.py, npu_config.py, adaptor_utils.py and meldataset.py
# runtime: multi-rank (torchrun, init_process_group, DistributedSampler)
# expect:
#   T101 at 45:5 `set_random_seed(args.seed)` seeds torch alike on every rank; the loader's 4
#        workers draw their base seeds from it, and the dataset crops at random in them.
#        `npu_config.seed_everything` (rank added) is not called by this script, and
#        `adaptor_utils.set_random_seed` by nothing.
# ----
import argparse
import random

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from meldataset import MelDataset
from npu_config import npu_config


def set_random_seed(seed):
    random.seed(seed)
    torch.manual_seed(seed)


def train(args):
    dist.init_process_group("nccl")
    trainset = MelDataset(["a.pt", "b.pt"], 8192)
    sampler = DistributedSampler(trainset)
    loader = DataLoader(trainset, num_workers=4, shuffle=False, sampler=sampler, batch_size=16, persistent_workers=True)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass
    print(npu_config.rank)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    set_random_seed(args.seed)
    train(args)


if __name__ == "__main__":
    main()
