# stagec fixture: t22h pos_worker_seed_rank_plus_id (issue 22, class 3; third blind review,
# DeepLearningExamples' shape)
# named: on the command line with the factory it imports (as pre-commit passes both)
# runtime: torchrun, one process per GPU; the init function is defined in each arm of the
#          seed test and handed to the factory, called through a local alias
# expect:
#   T101 at 36:13 the seed adds the local rank and the worker id: worker 1 of rank 0 and
#        worker 0 of rank 1 draw the same augmentations
# ----
import argparse
import os
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import TensorDataset

from loaders import build_train_loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--backend", default="torch")
    args = parser.parse_args()
    args.local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("nccl")
    if args.seed is not None:
        torch.manual_seed(args.seed + args.local_rank)
        np.random.seed(args.seed + args.local_rank)

        def init_worker(wid):
            print("worker", wid, "of rank", args.local_rank)
            np.random.seed(seed=args.seed + args.local_rank + wid)
            random.seed(args.seed + args.local_rank + wid)

    else:

        def init_worker(wid):
            print("worker", wid, "of rank", args.local_rank)

    if args.backend == "torch":
        make_loader = build_train_loader
    else:
        raise SystemExit("only the torch backend here")
    data = TensorDataset(torch.randn(10000, 3, 32, 32))
    loader, sampler = make_loader(data, 128, workers=args.workers, init_fn=init_worker)
    for epoch in range(5):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            print(epoch, x.mean().item())


if __name__ == "__main__":
    main()
