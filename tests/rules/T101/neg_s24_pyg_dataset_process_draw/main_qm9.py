# stagec fixture: s24 neg_pyg_dataset_process_draw (issue 22, class 3; review 32a's equiformer:
#                 every rank seeds alike and a PyTorch Geometric loader has workers, but the only
#                 draw of the dataset class is its split in `process()`, which builds the files
#                 once in the rank's own process; nothing the workers draw repeats)
# named: on the command line (`torchrun --nproc_per_node 8 main_qm9.py`)
# expect: nothing
#
# ----
import argparse

import numpy as np
import torch
import torch.distributed as dist
from torch_geometric.loader import DataLoader

from qm9 import QM9


def main(args):
    dist.init_process_group("nccl")
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    train_dataset = QM9(args.data_path, "train")
    sampler_train = torch.utils.data.DistributedSampler(train_dataset, shuffle=True)
    train_loader = DataLoader(
        train_dataset,
        batch_size=args.batch_size,
        sampler=sampler_train,
        num_workers=args.workers,
        drop_last=True,
    )
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(11, 1).cuda())
    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        for data in train_loader:
            model(data.x.cuda()).sum().backward()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_path", type=str, default="datasets/qm9")
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    main(parser.parse_args())
